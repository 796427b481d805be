/**
 * Red team round 10: a `redact` hook that caps the length of each text (`text.slice(0, n)`) cuts an
 * emoji in half. Everything else a run reports is made well-formed (providers refuse a whole
 * request holding a lone surrogate, and the result stays in the conversation), but the hook ran
 * after that step, so its lone surrogates reached the model in outputs, text parts and errors.
 */
import { createRegistry, defineTool, type ToolCallResult, toolContent } from "agent-tool-catalog";
import { describe, expect, it } from "vitest";

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Every string anywhere in a result. */
function strings(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.flatMap(strings);
  if (typeof value === "object" && value !== null) return Object.values(value).flatMap(strings);
  return [];
}

function registry(cap: number) {
  return createRegistry({
    redact: (text) => text.slice(0, cap),
    tools: [
      defineTool({
        name: "emoji",
        description: "Returns emoji.",
        inputSchema: { type: "object" },
        handler: () => ({ note: "ab😀cd" }),
      }),
      defineTool({
        name: "emoji_text",
        description: "Returns emoji as text content.",
        inputSchema: { type: "object" },
        handler: () => toolContent([{ type: "text", text: "ab😀cd" }]),
      }),
      defineTool({
        name: "emoji_error",
        description: "Fails with emoji.",
        inputSchema: { type: "object" },
        handler: () => {
          throw new Error("ab😀cd");
        },
      }),
    ],
  });
}

describe("a redact hook that cuts an emoji in half", () => {
  it("leaves no lone surrogate in outputs, text parts or error messages", async () => {
    // Three UTF-16 units: "ab" and the high half of the emoji.
    const run = registry(3).createRun();
    const results: ToolCallResult[] = [];
    for (const name of ["emoji", "emoji_text", "emoji_error", "no_such_tool"]) results.push(await run.call(name, {}));
    const lone = results.flatMap((result) => strings(result)).filter((text) => LONE_SURROGATE.test(text));
    expect(lone).toEqual([]);
    // The hook rewrites keys too (round 11), so its cap cuts "note" as well.
    expect(results[0]).toMatchObject({ ok: true, output: { not: "ab\uFFFD" } });
  });

  it("control: a cut between code points is kept exactly as the hook made it", async () => {
    const run = registry(4).createRun();
    expect(await run.call("emoji", {})).toMatchObject({ ok: true, output: { note: "ab😀" } });
    expect(await run.call("emoji_text", {})).toMatchObject({ ok: true, content: [{ type: "text", text: "ab😀" }] });
  });
});
