/**
 * Object arguments are copied as the JSON data they stand for. Plain data (the common case: an
 * adapter's parsed `tool_use.input`, a 2 MB patch) is copied without being turned into JSON text
 * and parsed back; these tests hold the copy to what that round trip gives, for every value, and
 * to the same size limit to the character.
 */
import { createRegistry, defineTool } from "agent-tool-catalog";
import fc from "fast-check";
import { afterEach, describe, expect, it, vi } from "vitest";
import { parseToolArguments } from "../../src/run/parse-tool-arguments.js";
import { copyPlainJson } from "../../src/run/plain-json-copy.js";

/** What the copy must equal: the round trip through JSON text. */
function roundTrip(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value));
}

/** Equal as JSON data, `__proto__` keys and the sign of zero included. */
function expectSameData(actual: unknown, expected: unknown): void {
  expect(JSON.stringify(actual)).toBe(JSON.stringify(expected));
  expect(actual).toStrictEqual(expected);
  const walk = (a: unknown, b: unknown): void => {
    if (typeof a === "number") expect(Object.is(a, b)).toBe(true);
    if (typeof a !== "object" || a === null) return;
    expect(Object.getPrototypeOf(a)).toBe(Object.getPrototypeOf(b));
    expect(Reflect.ownKeys(a)).toEqual(Reflect.ownKeys(b as object));
    for (const key of Object.keys(a)) walk((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]);
  };
  walk(actual, expected);
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("copyPlainJson", () => {
  it("gives what the JSON round trip gives, for any JSON data", () => {
    let copied = 0;
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const copy = copyPlainJson(value, Number.MAX_SAFE_INTEGER);
        if (copy === undefined) return; // left to JSON.stringify: nothing to compare
        copied++;
        expectSameData(copy.value, roundTrip(value));
      }),
      { numRuns: 500 },
    );
    // Not vacuous: JSON data is nearly always copied (control characters in a string are not).
    expect(copied).toBeGreaterThan(400);
  });

  it("copies plain data of every kind, escapes and `-0` and `__proto__` keys included", () => {
    const value = JSON.parse(
      '{"a":"quote \\" backslash \\\\ newline \\n tab \\t cr \\r ff \\f bs \\b é 😀","b":[1,-0,0.5,1e21,true,false,null,[],{}],"__proto__":{"x":1},"1":"one"}',
    );
    const copy = copyPlainJson(value, Number.MAX_SAFE_INTEGER);
    expect(copy).toBeDefined();
    expectSameData(copy?.value, roundTrip(value));
    // The `__proto__` key stayed an own property; the copy's prototype is Object's.
    expect(Object.getPrototypeOf(copy?.value)).toBe(Object.prototype);
    expect(Object.hasOwn(copy?.value as object, "__proto__")).toBe(true);
  });

  it("takes data of exactly the limit's JSON length and leaves one character more to JSON.stringify", () => {
    for (const text of ["plain", 'with "quotes" and \\ and\nlines\t', "é😀"]) {
      const value = { patch: text, n: [1, -0, 2.5], ok: true };
      const length = JSON.stringify(value).length;
      expect(copyPlainJson(value, length)).toBeDefined();
      expect(copyPlainJson(value, length - 1)).toBeUndefined();
    }
    // The exact count, not the bound of two per character, decides near the limit.
    const lines = "a\n".repeat(1000);
    expect(copyPlainJson({ lines }, JSON.stringify({ lines }).length)).toBeDefined();
  });

  it("leaves to JSON.stringify what is not plain data (and reads no getter)", () => {
    let reads = 0;
    const getter = {
      get target() {
        reads++;
        return "x";
      },
    };
    class Custom {
      readonly a = 1;
    }
    const sparse: unknown[] = [1];
    sparse[2] = 3;
    const notPlain: unknown[] = [
      getter,
      new Proxy({ a: 1 }, {}),
      new Proxy([1], {}),
      new Date(0),
      { toJSON: () => "x" },
      new Custom(),
      sparse,
      { a: undefined },
      [() => 1],
      { a: Number.NaN },
      { a: Number.POSITIVE_INFINITY },
      { a: 1n },
      { a: Symbol("s") },
      { a: "lone \ud800 surrogate" },
      { a: "control \u0001 character" },
      new Map(),
      Object.assign(Object.create({ inherited: 1 }), { a: 1 }),
    ];
    for (const value of notPlain) expect(copyPlainJson(value, Number.MAX_SAFE_INTEGER)).toBeUndefined();
    expect(reads).toBe(0);
    let deep: unknown = "leaf";
    for (let level = 0; level < 100; level++) deep = [deep];
    expect(copyPlainJson(deep, Number.MAX_SAFE_INTEGER)).toBeUndefined();
  });

  it("parseToolArguments answers as before for what the copy leaves (positive control of the fallback)", () => {
    const date = new Date(0);
    expect(parseToolArguments({ when: date, gone: undefined }, 1000, "t")).toEqual({ ok: true, value: { when: date.toJSON() } });
    expect(parseToolArguments({ a: "lone \ud800" }, 1000, "t")).toEqual({ ok: true, value: { a: "lone \ud800" } });
    expect(parseToolArguments({ a: "x".repeat(20) }, 10, "t")).toMatchObject({ ok: false, error: { code: "input_too_large" } });
  });
});

describe("a large plain argument reaches the handler", () => {
  it("as the same data, without its JSON text being built", async () => {
    const patch = `${'--- a/f\n+++ b/f\n@@ -1 +1 @@\n-"old"\t\\\n+new\n'.repeat(20_000)}`;
    const seen: string[] = [];
    const tool = defineTool({
      name: "take_patch",
      description: "Takes a patch.",
      inputSchema: { type: "object", properties: { patch: { type: "string" } }, required: ["patch"] },
      handler: (input: { patch: string }) => {
        seen.push(input.patch);
        return "ok";
      },
    });
    const run = createRegistry({ tools: [tool] }).createRun();
    const stringify = vi.spyOn(JSON, "stringify");
    const result = await run.call("take_patch", { patch });
    expect(result.ok).toBe(true);
    expect(seen).toEqual([patch]);
    // No JSON text of the arguments (or of any value holding the patch) was made.
    const ofPatch = stringify.mock.calls.filter(([value]) => containsPatch(value, patch));
    expect(ofPatch).toEqual([]);
  });
});

function containsPatch(value: unknown, patch: string): boolean {
  if (value === patch) return true;
  if (typeof value !== "object" || value === null) return false;
  return Object.values(value).some((each) => containsPatch(each, patch));
}
