/**
 * Red team round 11: outputs were condensed (head and tail of `condenseThreshold`) before the
 * `redact` hook ran, so a secret that the head/tail cut split reached the hook in two pieces (or
 * one, its other half left out), neither of which a `replaceAll(secret)` hook matches: part of
 * the secret reached the model. The hook now sees each whole text (cut only at the 8 Mi
 * characters of JSON an output may have) and the caps and condensing run on what it returns.
 */
import { createRegistry, defineTool, type ToolCallResult, toolContent } from "agent-tool-catalog";
import { describe, expect, it } from "vitest";
import { condenseText } from "../../src/run/condense-text.js";
import { MAX_OUTPUT_CHARS, TRUNCATED_MARKER } from "../../src/run/json-safe-output.js";

const SECRET = "sk-live-0123456789";
const mask = (text: string) => text.replaceAll(SECRET, "[secret]");
const THRESHOLD = 1000;
/** Where condensing cuts a 1,000-character budget with no line break near: head 600, tail 400. */
const HEAD = 600;
const TAIL = 400;

/** Every piece of the secret 4 characters or longer that occurs in `text`. */
function pieces(text: string): string[] {
  const found: string[] = [];
  for (let start = 0; start + 4 <= SECRET.length; start++) {
    const piece = SECRET.slice(start, start + 4);
    if (text.includes(piece)) found.push(piece);
  }
  return found;
}

/** Texts whose secret straddles the head's end, the tail's start, and ends the head exactly. */
function straddling(): string[] {
  const length = 5000;
  const at = (start: number) => `${".".repeat(start)}${SECRET}${".".repeat(length - start - SECRET.length)}`;
  return [at(HEAD - 8), at(length - TAIL - 8), at(HEAD - SECRET.length + 1)];
}

function registry(texts: readonly string[], redact?: (text: string) => string) {
  const pick = { type: "object", properties: { index: { type: "integer" } }, required: ["index"] } as const;
  return createRegistry({
    ...(redact === undefined ? {} : { redact }),
    tools: [
      defineTool({
        name: "text",
        description: "Returns a text.",
        inputSchema: pick,
        handler: ({ index }: { index: number }) => texts[index],
      }),
      defineTool({
        name: "object",
        description: "Returns a text inside an object.",
        inputSchema: pick,
        handler: ({ index }: { index: number }) => ({ log: texts[index], lines: 1 }),
      }),
      defineTool({
        name: "part",
        description: "Returns a text part.",
        inputSchema: pick,
        handler: ({ index }: { index: number }) => toolContent([{ type: "text", text: texts[index] ?? "" }]),
      }),
      defineTool({
        name: "part_and_output",
        description: "Returns a text part and a structured output.",
        inputSchema: pick,
        handler: ({ index }: { index: number }) =>
          toolContent([{ type: "text", text: texts[index] ?? "" }], { output: { log: texts[index] } }),
      }),
    ],
  });
}

const TOOLS = ["text", "object", "part", "part_and_output"];

/** Every text of a result the model reads. */
function readText(result: ToolCallResult): string {
  expect(result.ok).toBe(true);
  if (!result.ok) return "";
  const output = typeof result.output === "string" ? result.output : JSON.stringify(result.output);
  const parts = (result.content ?? []).map((part) => (part.type === "text" ? part.text : "")).join("\n");
  return `${output}\n${parts}`;
}

describe("a redact hook sees each whole text, before condensing", () => {
  it("replaces a secret that the condense cut splits, in text, object and content outputs", async () => {
    const texts = straddling();
    const run = registry(texts, mask).createRun({ condenseThreshold: THRESHOLD });
    for (const name of TOOLS) {
      for (let index = 0; index < texts.length; index++) {
        const text = readText(await run.call(name, { index }));
        expect({ name, index, pieces: pieces(text) }).toEqual({ name, index, pieces: [] });
        expect(text).toContain("characters (0 lines) omitted");
      }
    }
    // The head-straddling secret is replaced in place, at the start of what the model reads.
    const head = await run.call("text", { index: 0 });
    expect(head).toMatchObject({ ok: true, output: expect.stringMatching(/^\.{592}\[secret\]/) });
  });

  it("control: outputs without a secret are condensed exactly as without a hook", async () => {
    const texts = [
      "x".repeat(5000),
      Array.from({ length: 400 }, (_, line) => `line ${line}: ${"y".repeat(line % 17)}`).join("\n"),
      "short output",
      `emoji ${"😀".repeat(3000)}`,
    ];
    const masked = registry(texts, mask).createRun({ condenseThreshold: THRESHOLD });
    const plain = registry(texts).createRun({ condenseThreshold: THRESHOLD });
    for (const name of TOOLS) {
      for (let index = 0; index < texts.length; index++) {
        const withHook = await masked.call(name, { index });
        const without = await plain.call(name, { index });
        expect({ ...withHook, callId: "" }).toEqual({ ...without, callId: "" });
      }
    }
    expect(await masked.call("text", { index: 1 })).toMatchObject({ output: condenseText(texts[1] ?? "", THRESHOLD) });
  });

  it("sees an output over 8 Mi characters of JSON cut there (the capped value), and nothing longer", async () => {
    const huge = `${SECRET}${"z".repeat(MAX_OUTPUT_CHARS + 1000)}${SECRET}`;
    let longest = 0;
    const recording = (text: string) => {
      longest = Math.max(longest, text.length);
      return mask(text);
    };
    const run = registry([huge], recording).createRun({ condenseThreshold: Number.POSITIVE_INFINITY });
    for (const name of TOOLS) {
      const text = readText(await run.call(name, { index: 0 }));
      expect(text.startsWith(name === "object" || name === "part_and_output" ? '{"log":"[secret]zzz' : "[secret]zzz")).toBe(true);
      expect(text).not.toContain(SECRET);
      expect(text).toContain(TRUNCATED_MARKER);
    }
    expect(longest).toBeLessThanOrEqual(MAX_OUTPUT_CHARS + TRUNCATED_MARKER.length);
    // Condensed too: head and tail of the capped value, the secret at its start replaced.
    const condensed = await registry([huge], mask).createRun({ condenseThreshold: THRESHOLD }).call("text", { index: 0 });
    expect(condensed).toMatchObject({ ok: true, output: expect.stringMatching(/^\[secret\]z+\n\[\.\.\. /) });
  });
});
