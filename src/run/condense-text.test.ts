import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createRegistry } from "../registry/registry.js";
import { defineTool } from "../tool/define-tool.js";
import { createRunStorageKey } from "../tool/run-storage.js";
import { condenseText } from "./condense-text.js";

describe("condenseText", () => {
  it("leaves short text alone", () => {
    expect(condenseText("short", 10)).toBe("short");
  });

  it("keeps head and tail and says exactly how much was left out", () => {
    const lines = Array.from({ length: 1000 }, (_, index) => `line ${index}`).join("\n");
    const condensed = condenseText(lines, 2000);
    expect(condensed.startsWith("line 0\nline 1\n")).toBe(true);
    expect(condensed.endsWith("line 999")).toBe(true);
    const marker =
      /\[\.\.\. (\d+) characters \((\d+) lines\) omitted; showing the first (\d+) and the last (\d+) characters \.\.\.\]/.exec(
        condensed,
      );
    expect(marker).not.toBeNull();
    const [omitted, , head, tail] = (marker ?? []).slice(1).map(Number) as [number, number, number, number];
    expect(omitted + head + tail).toBe(lines.length);
    expect(condensed.length).toBeLessThan(2200);
  });
});

describe("run output condensing and storage", () => {
  it("condenses long string outputs of any tool and keeps storage per run", async () => {
    const counter = createRunStorageKey("counter", () => ({ calls: 0 }));
    const tool = defineTool({
      name: "big",
      description: "Prints a lot.",
      inputSchema: z.object({}),
      handler: (_input, context) => {
        context.storage.get(counter).calls++;
        return `${"x".repeat(5000)}${context.storage.get(counter).calls}`;
      },
    });
    const registry = createRegistry({ tools: [tool] });
    const run = registry.createRun({ condenseThreshold: 1000 });
    const first = await run.call("big", {});
    const second = await run.call("big", {});
    expect(first.ok && typeof first.output === "string" && first.output.length < 1200).toBe(true);
    expect(second.ok && String(second.output).endsWith("2")).toBe(true);
    const other = await registry.createRun({ condenseThreshold: Number.POSITIVE_INFINITY }).call("big", {});
    expect(other.ok && String(other.output)).toBe(`${"x".repeat(5000)}1`);
  });
});
