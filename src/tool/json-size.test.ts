import { describe, expect, it } from "vitest";
import { estimateJsonSize } from "./json-size.js";

describe("estimateJsonSize", () => {
  it("counts strings with their quotes, keys with their punctuation, 8 per number or boolean, 4 per null", () => {
    // {"ab":"cde","n":1,"list":[true,null]}: 2 + (2+4) + (3+2) + (1+4) + 8 + (4+4) + (2+2) + 8 + 4
    expect(estimateJsonSize({ ab: "cde", n: 1, list: [true, null] }, 1_000)).toBe(2 + 6 + 5 + 5 + 8 + 8 + 4 + 8 + 4);
  });

  it("measures a value nested 200,000 deep without the call stack", () => {
    const deep = JSON.parse(`${"[".repeat(200_000)}${"]".repeat(200_000)}`) as unknown;
    // Each array but the innermost holds one element: 2 + 1; the innermost is empty: 2.
    expect(estimateJsonSize(deep, Number.POSITIVE_INFINITY)).toBe(199_999 * 3 + 2);
  });

  it("answers Infinity once past the limit, and for a cycle or what JSON cannot hold", () => {
    const strings = Array.from({ length: 1_000 }, () => "x".repeat(1_000));
    expect(estimateJsonSize(strings, 5_000)).toBe(Number.POSITIVE_INFINITY);
    expect(estimateJsonSize(strings, 2_000_000)).toBe(2 + 1_000 + 1_000 * 1_002);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(estimateJsonSize(cyclic, 1_000)).toBe(Number.POSITIVE_INFINITY);
    expect(estimateJsonSize({ big: 1n }, 1_000)).toBe(Number.POSITIVE_INFINITY);
  });

  it("does not walk a sparse array's holes (a length of 2^32 - 1 with one element)", () => {
    const sparse: unknown[] = [];
    sparse[2 ** 32 - 2] = 1;
    expect(estimateJsonSize(sparse, 1_000_000)).toBe(Number.POSITIVE_INFINITY);
  });
});
