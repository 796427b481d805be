/**
 * Keys the `redact` hook makes alike are numbered (`[secret] (2)`). Each key used to count up from
 * 2 again, so 20,000 keys masked to one text blocked the event loop for tens of seconds (quadratic);
 * the next number is now remembered per name.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { toJsonSafe } from "./json-safe-output.js";

const mask = (text: string) => text.replace(/sk-live-\d+/g, "[secret]");

function mapped(value: unknown): Record<string, unknown> {
  const outcome = toJsonSafe(value, undefined, mask);
  if (!outcome.ok) throw new Error(outcome.reason);
  return outcome.value as Record<string, unknown>;
}

describe("keys the redact hook makes alike", () => {
  it("20,000 keys masked to one text are numbered in linear time, every value kept", () => {
    const count = 20_000;
    const output = Object.fromEntries(Array.from({ length: count }, (_, i) => [`sk-live-${String(i).padStart(10, "0")}`, i]));
    const before = process.cpuUsage();
    const copy = mapped(output);
    const used = process.cpuUsage(before);
    const cpuMs = (used.user + used.system) / 1000;
    // Tens of seconds of CPU when counted up from 2 for each key; tens of milliseconds now.
    expect(cpuMs).toBeLessThan(2000);
    const names = Object.keys(copy);
    expect(names).toHaveLength(count);
    expect(new Set(names).size).toBe(count);
    expect(Object.values(copy)).toEqual(Array.from({ length: count }, (_, i) => i));
    expect(names.slice(0, 3)).toEqual(["[secret]", "[secret] (2)", "[secret] (3)"]);
    expect(names.at(-1)).toBe(`[secret] (${count})`);
  });

  it("a literal key that reads like a numbered name is skipped, not overwritten", () => {
    const copy = mapped({
      "sk-live-1": "a",
      "[secret] (2)": "b",
      "sk-live-2": "c",
      "sk-live-3": "d",
      "[secret] (5)": "e",
      "sk-live-4": "f",
    });
    expect(copy).toEqual({
      "[secret]": "a",
      "[secret] (2)": "b",
      "[secret] (3)": "c",
      "[secret] (4)": "d",
      "[secret] (5)": "e",
      "[secret] (6)": "f",
    });
    expect(Object.keys(copy)).toEqual([
      "[secret]",
      "[secret] (2)",
      "[secret] (3)",
      "[secret] (4)",
      "[secret] (5)",
      "[secret] (6)",
    ]);
  });

  it("no value is lost and names stay unique, whatever the keys (fast-check)", () => {
    const key = fc.oneof(
      fc.constantFrom("sk-live-1", "sk-live-22", "[secret]", "[secret] (2)", "[secret] (3)", "[secret] (2) (2)", "x"),
      fc.integer({ min: 1, max: 6 }).map((n) => `[secret] (${n})`),
      fc.nat({ max: 50 }).map((n) => `sk-live-${n}`),
    );
    fc.assert(
      fc.property(fc.uniqueArray(key, { maxLength: 30 }), (keys) => {
        const output: Record<string, unknown> = {};
        keys.forEach((name, index) => {
          output[name] = index;
        });
        const copy = mapped(output);
        expect(Object.values(copy)).toEqual(keys.map((_, index) => index));
        expect(JSON.stringify(copy)).not.toContain("sk-live-");
      }),
    );
  });
});
