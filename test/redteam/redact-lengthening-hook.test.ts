/**
 * Red team round 10 (leftover): the size caps ran before the `redact` hook, so a hook that makes
 * text longer (a long marker per match, a hook gone wrong) sent the model whatever it returned:
 * past `condenseThreshold`, and past the 8 Mi characters an output's JSON may have. What the hook
 * returns now passes the same caps (and is made well-formed).
 */
import { createRegistry, defineTool, type ToolCallResult, toolContent } from "agent-tool-catalog";
import { describe, expect, it } from "vitest";
import { MAX_ERROR_TEXT_LENGTH } from "../../src/run/describe-failure.js";
import { MAX_OUTPUT_CHARS, TRUNCATED_MARKER } from "../../src/run/json-safe-output.js";

const MI = 1024 * 1024;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function registry(redact: (text: string) => string) {
  return createRegistry({
    redact,
    tools: [
      defineTool({
        name: "strings",
        description: "Returns many short strings.",
        inputSchema: { type: "object" },
        handler: () => ({ items: Array.from({ length: 40 }, (_, index) => `item ${index} secret`) }),
      }),
      defineTool({
        name: "text",
        description: "Returns text.",
        inputSchema: { type: "object" },
        handler: () => "a secret here",
      }),
      defineTool({
        name: "parts",
        description: "Returns a text part.",
        inputSchema: { type: "object" },
        handler: () => toolContent([{ type: "text", text: "a secret here" }]),
      }),
      defineTool({
        name: "fails",
        description: "Fails.",
        inputSchema: { type: "object" },
        handler: () => {
          throw new Error("a secret here");
        },
      }),
    ],
  });
}

/** A hook that writes 1 Mi characters in place of each secret. */
const lengthening = (text: string) => text.replaceAll("secret", "#".repeat(MI));

function outputText(result: ToolCallResult): string {
  expect(result.ok).toBe(true);
  if (!result.ok) throw new Error("unreachable");
  return typeof result.output === "string" ? result.output : JSON.stringify(result.output);
}

describe("a redact hook that makes text longer", () => {
  it("cannot take an output past 8 Mi characters of JSON (condenseThreshold off)", async () => {
    const run = registry(lengthening).createRun({ condenseThreshold: Number.POSITIVE_INFINITY });
    const json = outputText(await run.call("strings", {}));
    // 40 strings of 1 Mi each came back from the hook: 40 Mi before.
    expect(json.length).toBeLessThanOrEqual(MAX_OUTPUT_CHARS + 4 * TRUNCATED_MARKER.length);
    expect(json).toContain(TRUNCATED_MARKER);
    expect(json.startsWith('{"items":["item 0 ###')).toBe(true);
  });

  it("cannot take outputs, text parts or errors past condenseThreshold or the error cap", async () => {
    const run = registry(lengthening).createRun({ condenseThreshold: 10_000 });
    for (const name of ["strings", "text"]) expect(outputText(await run.call(name, {})).length).toBeLessThan(10_200);
    const parts = await run.call("parts", {});
    expect(parts.ok).toBe(true);
    if (parts.ok) {
      expect(String(parts.output).length).toBeLessThan(10_200);
      expect(parts.content?.every((part) => part.type === "text" && part.text.length < 10_200)).toBe(true);
    }
    const failed = await run.call("fails", {});
    expect(failed.ok).toBe(false);
    if (!failed.ok) expect(failed.error.message.length).toBeLessThanOrEqual(MAX_ERROR_TEXT_LENGTH + 10);
  });

  it("is made well-formed when the cap cuts what it returns", async () => {
    const run = registry((text) => text.replaceAll("secret", "😀".repeat(MI))).createRun({
      condenseThreshold: Number.POSITIVE_INFINITY,
    });
    const json = outputText(await run.call("strings", {}));
    expect(LONE_SURROGATE.test(json)).toBe(false);
    const failed = await run.call("fails", {});
    if (!failed.ok) expect(LONE_SURROGATE.test(failed.error.message)).toBe(false);
  });

  it("control: a hook that shortens still works, and an in-cap output is exactly what the hook made", async () => {
    const masking = registry((text) => text.replaceAll("secret", "[s]")).createRun();
    expect(await masking.call("strings", {})).toMatchObject({ ok: true, output: { items: expect.any(Array) } });
    const items = ((await masking.call("strings", {})) as { output: { items: string[] } }).output.items;
    expect(items).toEqual(Array.from({ length: 40 }, (_, index) => `item ${index} [s]`));
    expect(await masking.call("text", {})).toMatchObject({ ok: true, output: "a [s] here" });
    expect(await masking.call("parts", {})).toMatchObject({ ok: true, content: [{ type: "text", text: "a [s] here" }] });
    expect(await masking.call("fails", {})).toMatchObject({
      ok: false,
      error: { message: 'The tool "fails" failed: a [s] here' },
    });
    // Longer, but within every cap: kept exactly.
    const longer = registry((text) => text.replaceAll("secret", "[redacted secret]")).createRun();
    expect(await longer.call("text", {})).toMatchObject({ ok: true, output: "a [redacted secret] here" });
    expect(await longer.call("fails", {})).toMatchObject({
      ok: false,
      error: { message: 'The tool "fails" failed: a [redacted secret] here' },
    });
  });
});
