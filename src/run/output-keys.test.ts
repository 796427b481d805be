import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { TRUNCATED_MARKER, toJsonSafe } from "./json-safe-output.js";
import { OutputKeys } from "./output-keys.js";

const LONE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Pieces that make keys collide after repair: lone halves, U+FFFD, and the text of their escapes. */
const piece = fc.constantFrom("a", "\uD800", "\uDC00", "\uD83D", "\uDE00", "\uFFFD", "\\ud800", "\\udc00", " (2)", "…");
/** Keys built from those pieces, or of any UTF-16 code units. */
const key = fc.oneof(
  fc.array(piece, { maxLength: 4 }).map((parts) => parts.join("")),
  fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code)), maxLength: 4 }),
);
const entries = fc.uniqueArray(fc.tuple(key, fc.integer()), { selector: ([name]) => name, maxLength: 12 });

function objectOf(pairs: readonly (readonly [string, unknown])[]): Record<string, unknown> {
  // Defined, not assigned: "__proto__" stays a key.
  const object: Record<string, unknown> = {};
  for (const [name, value] of pairs)
    Object.defineProperty(object, name, { value, enumerable: true, writable: true, configurable: true });
  return object;
}

function converted(value: unknown): Record<string, unknown> {
  const outcome = toJsonSafe(value);
  if (!outcome.ok) throw new Error(outcome.reason);
  return outcome.value as Record<string, unknown>;
}

describe("repairing an output's keys loses none", () => {
  it("two keys that differ only in lone surrogates both stay, the first under U+FFFD, the next escaped", () => {
    const out = converted({ "a\uD800": 1, "a\uDC00": 2, "b\uD83D": { "c\uDE00": 3 } });
    expect(out).toEqual({ "a\uFFFD": 1, "a\\udc00": 2, "b\uFFFD": { "c\uFFFD": 3 } });
  });

  it("a well-formed key keeps its name even after a repaired key that would take it", () => {
    // The well-formed key comes second: the repaired one must still not take its name.
    const out = converted(
      objectOf([
        ["x\uD800", 1],
        ["x\uFFFD", 2],
        ["x\\ud800", 3],
      ]),
    );
    expect(out).toEqual({ "x\\ud800 (2)": 1, "x\uFFFD": 2, "x\\ud800": 3 });
    // JSON-safe, and every key well-formed
    expect(Object.keys(out).some((name) => LONE.test(name))).toBe(false);
  });

  it("no key or value is lost, every key is well-formed, and the naming is deterministic (fast-check)", () => {
    fc.assert(
      fc.property(entries, (pairs) => {
        const out = converted(objectOf(pairs));
        const names = Object.keys(out);
        expect(names).toHaveLength(pairs.length);
        expect(names.filter((name) => LONE.test(name))).toEqual([]);
        // In order: the copy keeps the object's key order, so each value stands where it was.
        expect(Object.values(out)).toEqual(Object.values(objectOf(pairs)));
        // A well-formed key keeps its name and value.
        for (const [name, value] of pairs)
          if (!LONE.test(name)) expect(Object.getOwnPropertyDescriptor(out, name)?.value).toBe(value);
        expect(converted(objectOf(pairs))).toEqual(out);
      }),
      { numRuns: 500 },
    );
  });

  it("a well-formed object comes out unchanged (fast-check)", () => {
    const wellFormedKey = key.filter((name) => !LONE.test(name));
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.tuple(wellFormedKey, fc.oneof(fc.integer(), fc.string())), {
          selector: ([name]) => name,
          maxLength: 12,
        }),
        (pairs) => {
          const object = objectOf(pairs);
          const out = converted(object);
          expect(Object.keys(out)).toEqual(Object.keys(object));
          expect(out).toEqual(object);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("the truncation marker never overwrites an object's own key named like it", () => {
    const out = converted({ "…": "mine", big: "x".repeat(100), after: 1 });
    expect(out["…"]).toBe("mine");
    // positive control: a small budget cuts the object and marks it under the free name
    const outcome = toJsonSafe({ "…": "mine", big: "x".repeat(100), after: 1 }, 50);
    const cut = (outcome as { value: Record<string, unknown> }).value;
    expect(cut["…"]).toBe("mine");
    expect(cut["… (2)"]).toBe(TRUNCATED_MARKER);
    const plain = (toJsonSafe({ big: "x".repeat(100), after: 1 }, 50) as { value: Record<string, unknown> }).value;
    expect(Object.keys(plain)).toEqual(["big", "…"]);
    expect(plain["…"]).toBe(TRUNCATED_MARKER);
  });

  it("OutputKeys numbers a repaired key whose two preferred names are both taken", () => {
    const keys = ["k\uFFFD", "k\\ud800", "k\\ud800 (2)", "k\uD800"];
    const names = new OutputKeys(keys);
    expect(keys.map((name) => names.nameOf(name))).toEqual(["k\uFFFD", "k\\ud800", "k\\ud800 (2)", "k\\ud800 (3)"]);
  });
});
