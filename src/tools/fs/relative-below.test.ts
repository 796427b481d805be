import path from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { relativeBelow } from "./relative-below.js";

/** Absolute, normalised paths over a small alphabet, so that prefixes, equal paths and `..`-like names meet often. */
const segment = fc.constantFrom("a", "b", "ab", "..a", "a.", ".b", "a b", "é", "a\\b");
const absolute = fc.array(segment, { maxLength: 5 }).map((segments) => path.resolve("/", ...segments));

describe("relativeBelow", () => {
  it("answers as path.relative for every pair of absolute normalised paths", () => {
    fc.assert(
      fc.property(absolute, absolute, fc.array(segment, { maxLength: 3 }), (root, other, below) => {
        // Below the root (the cut), the root itself, and any other path (path.relative's own answer).
        for (const candidate of [path.join(root, ...below), root, other]) {
          expect(relativeBelow(root, candidate)).toBe(path.relative(root, candidate));
        }
      }),
      { numRuns: 500 },
    );
  });

  it("cuts a path below the root, and leaves a sibling sharing the root's spelling to path.relative", () => {
    expect(relativeBelow("/w/ws", "/w/ws/d/f.txt")).toBe("d/f.txt");
    expect(relativeBelow("/w/ws", "/w/ws")).toBe("");
    expect(relativeBelow("/w/ws", "/w/wsx/f")).toBe("../wsx/f");
    expect(relativeBelow("/", "/a/b")).toBe("a/b");
  });
});
