import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createRegistry } from "../registry/registry.js";
import { defineTool } from "../tool/define-tool.js";
import { formatToolResult } from "../tool/tool-call-result.js";
import { toolContent } from "../tool/tool-content.js";

const SECRET = "sk-live-0123456789";
const mask = (text: string) => text.replaceAll(SECRET, "[secret]");

describe("createRegistry({ redact }) (issue 16.6)", () => {
  const leaky = defineTool({
    name: "leaky",
    description: "Leaks a secret in every way.",
    inputSchema: z.object({ how: z.enum(["throw", "string", "object", "content"]) }),
    handler: ({ how }) => {
      if (how === "throw") throw new Error(`connection to https://user:${SECRET}@db failed`);
      if (how === "string") return `token=${SECRET}`;
      if (how === "object") return { nested: [{ token: SECRET }], count: 1 };
      return toolContent([{ type: "text", text: `key ${SECRET}` }]);
    },
  });

  it("masks every text the model reads: errors, string and object outputs, text parts, and the events", async () => {
    const registry = createRegistry({ tools: [leaky], redact: mask });
    const seen: string[] = [];
    registry.events.on("tool.result", ({ result }) => seen.push(JSON.stringify(result)));
    registry.events.on("tool.error", ({ error }) => seen.push(JSON.stringify(error)));
    const run = registry.createRun();
    for (const how of ["throw", "string", "object", "content"]) {
      const result = await run.call("leaky", { how });
      const text = `${formatToolResult(result)} ${JSON.stringify(result)}`;
      expect(text).not.toContain(SECRET);
      expect(text).toContain("[secret]");
    }
    expect(seen.join("\n")).not.toContain(SECRET);
    expect(await run.call("leaky", { how: "object" })).toMatchObject({ ok: true, output: { count: 1 } });
  });

  it("fails closed when the hook throws, and changes nothing without a hook", async () => {
    const throwing = createRegistry({
      tools: [leaky],
      redact: () => {
        throw new Error("broken hook");
      },
    });
    const result = await throwing.createRun().call("leaky", { how: "string" });
    expect(formatToolResult(result)).not.toContain(SECRET);
    expect(formatToolResult(result)).toMatch(/redaction hook failed/);
    const plain = await createRegistry({ tools: [leaky] })
      .createRun()
      .call("leaky", { how: "string" });
    expect(formatToolResult(plain)).toContain(SECRET);
  });
});
