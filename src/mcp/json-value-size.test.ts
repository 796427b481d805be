import { describe, expect, it } from "vitest";
import { jsonValueSize } from "./json-value-size.js";

describe("jsonValueSize", () => {
  it("counts string lengths (keys too) and 8 for every other value", () => {
    expect(jsonValueSize({ ab: "cde", n: 1, list: [true, null] }, 1_000)).toBe(8 + 2 + 3 + 1 + 8 + 4 + 8 + 8 + 8);
  });

  it("measures a value nested 200,000 deep without the call stack", () => {
    const deep = JSON.parse(`${"[".repeat(200_000)}${"]".repeat(200_000)}`) as unknown;
    expect(jsonValueSize(deep, Number.POSITIVE_INFINITY)).toBe(200_000 * 8);
  });

  it("stops once past the limit", () => {
    const strings = Array.from({ length: 1_000 }, () => "x".repeat(1_000));
    const size = jsonValueSize(strings, 5_000);
    expect(size).toBeGreaterThan(5_000);
    expect(size).toBeLessThan(7_000);
  });
});
