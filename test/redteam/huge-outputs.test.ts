// Red team round 5: a handler returning an output far too big for JSON held the event loop for
// minutes (every concurrent call, timer and abort signal with it): `new Array(2 ** 31)` 285 s and
// then `internal_error`, a 20 MB Uint8Array 168 s, a 30 MB Buffer 9.5 s. The conversion to JSON
// now stops at MAX_OUTPUT_CHARS with a marker, and the result is the usual condensed text.
import { createRegistry, defineTool, type ToolCallResult } from "agent-tool-catalog";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { MAX_OUTPUT_CHARS, TRUNCATED_MARKER, toJsonSafe } from "../../src/run/json-safe-output.js";

function runReturning(output: () => unknown) {
  const registry = createRegistry({
    tools: [
      defineTool({
        name: "huge",
        description: "Returns a huge value.",
        tier: "core",
        inputSchema: z.object({}),
        handler: async () => output(),
      }),
    ],
  });
  return registry.createRun({});
}

/** Calls the tool and measures how long the event loop was held at most while it ran. */
async function timedCall(output: () => unknown): Promise<{ result: ToolCallResult; ms: number }> {
  const value = output();
  const run = runReturning(() => value);
  const started = performance.now();
  const result = await run.call("huge", {});
  return { result, ms: performance.now() - started };
}

function okText(result: ToolCallResult): string {
  expect(result.ok).toBe(true);
  if (!result.ok) throw new Error("unreachable");
  expect(typeof result.output).toBe("string");
  return result.output as string;
}

describe("huge handler outputs are bounded before they are serialised", () => {
  it("a sparse array of 2^31 holes settles quickly, condensed, with the truncation marker", async () => {
    const { result, ms } = await timedCall(() => new Array(2 ** 31));
    const text = okText(result);
    expect(text.startsWith("[null,null,")).toBe(true);
    expect(text).toContain(TRUNCATED_MARKER);
    expect(text.length).toBeLessThan(41_000);
    expect(ms).toBeLessThan(8_000);
  });

  it("a 64 MB Buffer and a 20 MB Uint8Array keep JSON's shape and settle quickly", async () => {
    const buffer = await timedCall(() => Buffer.alloc(64 << 20, 7));
    const bufferText = okText(buffer.result);
    expect(bufferText.startsWith('{"type":"Buffer","data":[7,7,7,')).toBe(true);
    expect(bufferText).toContain(TRUNCATED_MARKER);
    expect(buffer.ms).toBeLessThan(8_000);
    const typed = await timedCall(() => new Uint8Array(20 << 20).fill(3));
    const typedText = okText(typed.result);
    expect(typedText.startsWith('{"0":3,"1":3,"2":3,')).toBe(true);
    expect(typedText).toContain(TRUNCATED_MARKER);
    expect(typed.ms).toBeLessThan(8_000);
  });

  it("a nested string over the limit is cut with the marker; the JSON stays one string", () => {
    const outcome = toJsonSafe({ a: "x".repeat(MAX_OUTPUT_CHARS + 10) });
    expect(outcome.ok).toBe(true);
    if (!outcome.ok) return;
    const a = (outcome.value as { a: string }).a;
    expect(a.endsWith(TRUNCATED_MARKER)).toBe(true);
    expect(a.length).toBeLessThanOrEqual(MAX_OUTPUT_CHARS + TRUNCATED_MARKER.length);
  });

  it("positive control: outputs under the limit are exactly what JSON.stringify gives", async () => {
    const small = {
      list: Array.from({ length: 50_000 }, (_, index) => ({ index, name: `item ${index}` })),
      bytes: Buffer.from([1, 2, 3]),
      typed: new Int16Array([-1, 2]),
      big: 12n,
    };
    const outcome = toJsonSafe(small);
    expect(outcome.ok).toBe(true);
    if (!outcome.ok) return;
    expect(JSON.stringify(outcome.value)).toBe(JSON.stringify({ ...small, big: "12" }));
    expect(JSON.stringify(outcome.value)).not.toContain(TRUNCATED_MARKER);
    const run = runReturning(() => ({ rows: [1, 2, 3], buffer: Buffer.from("hi") }));
    const result = await run.call("huge", {});
    expect(result).toMatchObject({ ok: true, output: { rows: [1, 2, 3], buffer: { type: "Buffer", data: [104, 105] } } });
  });
});
