import { describe, expect, it } from "vitest";
import { foldPunctuation } from "./fold-punctuation.js";
import { LineIndex, lineKey } from "./line-matcher.js";

describe("lineKey", () => {
  it("is stricter at each earlier level", () => {
    const line = "\t“quoted” — text  ";
    expect(lineKey(line, "exact")).toBe(line);
    expect(lineKey(line, "trim_end")).toBe("\t“quoted” — text");
    expect(lineKey(line, "trim")).toBe("“quoted” — text");
    expect(lineKey(line, "punctuation")).toBe('"quoted" - text');
  });
});

describe("foldPunctuation", () => {
  it("folds dashes, minus, curly quotes and Unicode spaces, and leaves the rest", () => {
    expect(foldPunctuation("a\u2010b\u2011c\u2013d\u2014e\u2212f")).toBe("a-b-c-d-e-f");
    expect(foldPunctuation("\u2018s\u2019 \u201Cd\u201D \u201Elow\u201F")).toBe('\'s\' "d" "low"');
    expect(foldPunctuation("a\u00a0b\u2003c\u202fd\u3000e")).toBe("a b c d e");
    expect(foldPunctuation("naïve café ✅")).toBe("naïve café ✅");
  });
});

describe("LineIndex", () => {
  const lines = ["}", "", "function a() {", "  return 1;", "}", "", "function b() {", "  return 1;", "}"];
  const index = new LineIndex(lines);

  it("finds every start of a run of lines, in order, from a position", () => {
    expect(index.find(["  return 1;", "}"], "exact", 0, 10)).toEqual([3, 7]);
    expect(index.find(["  return 1;", "}"], "exact", 4, 10)).toEqual([7]);
    expect(index.find(["  return 1;", "}"], "exact", 0, 1)).toEqual([3]);
  });

  it("finds nothing for a line the file lacks, or a run past the end", () => {
    expect(index.find(["  return 2;"], "exact", 0, 10)).toEqual([]);
    expect(index.find(["}", "", "function c() {"], "exact", 0, 10)).toEqual([]);
    expect(index.find([], "exact", 0, 10)).toEqual([]);
  });

  it("matches at tolerant levels only", () => {
    expect(index.find(["return 1;"], "exact", 0, 10)).toEqual([]);
    expect(index.find(["return 1;"], "trim", 0, 10)).toEqual([3, 7]);
    expect(index.matchesAt(["function b() {   "], "trim_end", 6)).toBe(true);
    expect(index.matchesAt(["function b() {   "], "exact", 6)).toBe(false);
    expect(index.matchesAt(["}"], "exact", 9)).toBe(false);
  });

  it("checks a place by the lines it compares, without making every line of the file", () => {
    const source = {
      length: lines.length,
      lineAt: (at: number) => lines[at] as string,
      get lines(): readonly string[] {
        throw new Error("the whole file was split");
      },
    };
    const lazy = new LineIndex(source);
    expect(lazy.matchesAt(["function b() {", "  return 1;"], "exact", 6)).toBe(true);
    expect(lazy.matchesAt(["function b() {   "], "trim_end", 6)).toBe(true);
    expect(lazy.matchesAt(["function b() {"], "exact", 5)).toBe(false);
    // A search over the whole file does need them (control: the source above is really used).
    expect(() => lazy.find(["}"], "exact", 0, 10)).toThrow(/whole file/);
  });
});
