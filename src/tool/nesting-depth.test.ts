import { describe, expect, it } from "vitest";
import { nestingDepth } from "./nesting-depth.js";

/** `levels` arrays nested in one another, built from JSON text as a hostile peer would send it. */
const nested = (levels: number): unknown => JSON.parse(`${"[".repeat(levels)}${"]".repeat(levels)}`);

describe("nestingDepth", () => {
  it("counts objects and arrays, not primitives", () => {
    expect(nestingDepth("text")).toBe(0);
    expect(nestingDepth(null)).toBe(0);
    expect(nestingDepth({})).toBe(1);
    expect(nestingDepth({ a: 1, b: "x" })).toBe(1);
    expect(nestingDepth({ a: [1, { b: null }], c: [] })).toBe(3);
    expect(nestingDepth([[], [[[]]], [[]]])).toBe(4);
  });

  it("walks 200,000 levels without recursion", () => {
    expect(nestingDepth(nested(200_000))).toBe(200_000);
  });

  it("stops past its limit with limit + 1, and gives the depth at or under it", () => {
    expect(nestingDepth(nested(200_000), 100)).toBe(101);
    expect(nestingDepth(nested(101), 100)).toBe(101);
    expect(nestingDepth(nested(100), 100)).toBe(100);
  });
});
