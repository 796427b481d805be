/**
 * Red team round 11: the `redact` hook rewrote every string value of an object output but none of
 * its keys, while the README promises that it rewrites "every text a result carries to the
 * model". A handler returning a map keyed by secrets (sessions by token, an environment dump, a
 * credentials file parsed to an object) sent them to the model unmasked, in the run's result,
 * in `tool.result` events and in every adapter's tool message. Keys now go through the hook too;
 * keys it makes alike are numbered so that no value is lost.
 */
import { createRegistry, defineTool, formatToolResult, type ToolCallResult, toolContent } from "agent-tool-catalog";
import { anthropicToolResult } from "agent-tool-catalog/anthropic";
import { describe, expect, it } from "vitest";

const SECRET = "sk-live-0123456789";
const OTHER = "sk-live-9876543210";
const mask = (text: string) => text.replace(/sk-live-\d+/g, "[secret]");

/** Every shape of output that carries an object: plain, nested in an array, a content part's structured output. */
function registry(output: () => unknown, redact?: (text: string) => string) {
  return createRegistry({
    ...(redact === undefined ? {} : { redact }),
    tools: [
      defineTool({ name: "plain", description: "An object.", inputSchema: { type: "object" }, handler: () => output() }),
      defineTool({
        name: "nested",
        description: "An object in an array in an object.",
        inputSchema: { type: "object" },
        handler: () => ({ items: [output()] }),
      }),
      defineTool({
        name: "content",
        description: "A text part with a structured output.",
        inputSchema: { type: "object" },
        handler: () => toolContent([{ type: "text", text: "see output" }], { output: output() }),
      }),
    ],
  });
}
const TOOLS = ["plain", "nested", "content"];

function everything(result: ToolCallResult, events: readonly unknown[]): string {
  return [JSON.stringify(result), JSON.stringify(formatToolResult(result)), JSON.stringify(events)].join("\n");
}

async function callAll(output: () => unknown, redact?: (text: string) => string) {
  const reg = registry(output, redact);
  const events: unknown[] = [];
  reg.events.on("tool.result", (event) => events.push(event));
  const run = reg.createRun({});
  const results: ToolCallResult[] = [];
  for (const name of TOOLS) results.push(await run.call(name, {}));
  return { results, events, run };
}

function objectOf(result: ToolCallResult): Record<string, unknown> {
  expect(result.ok).toBe(true);
  if (!result.ok) throw new Error("unreachable");
  const output = result.output as Record<string, unknown>;
  if (result.tool === "nested") return (output.items as Record<string, unknown>[])[0] as Record<string, unknown>;
  return output;
}

describe("the redact hook rewrites the keys of object outputs", () => {
  it("a secret used as a key reaches neither the result, the formatted tool message, an adapter nor an event", async () => {
    const { results, events } = await callAll(() => ({ sessions: { [SECRET]: { user: "ada" } }, [`token=${SECRET}`]: 1 }), mask);
    for (const result of results) {
      const text = everything(result, events);
      expect(text).not.toContain(SECRET);
      expect(objectOf(result)).toEqual({ sessions: { "[secret]": { user: "ada" } }, "token=[secret]": 1 });
    }
    const blocks = results.map((result) => anthropicToolResult(result.callId, result));
    expect(JSON.stringify(blocks)).not.toContain(SECRET);
  });

  it("keys the hook makes alike keep every value (numbered), in the object's order", async () => {
    const { results } = await callAll(() => ({ [SECRET]: "first", [OTHER]: "second", "[secret] (2)": "third" }), mask);
    for (const result of results) {
      const object = objectOf(result);
      expect(Object.values(object)).toEqual(["first", "second", "third"]);
      expect(JSON.stringify(object)).not.toContain("sk-live-");
    }
  });

  it("a hook that throws on a key fails closed for that key, and the value stays", async () => {
    const failing = (text: string) => {
      if (text.includes(SECRET)) throw new Error("no");
      return text;
    };
    const { results } = await callAll(() => ({ [SECRET]: "value", kept: "yes" }), failing);
    for (const result of results) {
      const object = objectOf(result);
      expect(JSON.stringify(object)).not.toContain(SECRET);
      expect(Object.values(object)).toEqual(["value", "yes"]);
      expect(object.kept).toBe("yes");
    }
  });

  it("a hook that cuts a key inside an emoji leaves it well-formed", async () => {
    const { results } = await callAll(
      () => ({ "😀key": 1, "😀other": 2 }),
      (text) =>
        // Cuts inside the emoji (its high half), only for these keys.
        text.startsWith("😀") ? text.slice(0, 1) : text,
    );
    for (const result of results) {
      const object = objectOf(result);
      expect(Object.keys(object)).toEqual(["\uFFFD", "\uFFFD (2)"]);
      expect(Object.values(object)).toEqual([1, 2]);
    }
  });

  it("control: keys without a secret, and every key without a hook, are kept exactly", async () => {
    const plain = { b: 1, a: { "x y": [1, { z: "w" }] }, __proto__x: 2 };
    const withHook = await callAll(() => plain, mask);
    const withoutHook = await callAll(() => ({ [SECRET]: 1, ...plain }));
    for (const result of withHook.results) expect(JSON.stringify(objectOf(result))).toBe(JSON.stringify(plain));
    for (const result of withoutHook.results) expect(objectOf(result)).toEqual({ [SECRET]: 1, ...plain });
  });
});
