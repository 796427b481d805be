import { describe, expect, it } from "vitest";
import { ContextLines, splitLines } from "./grep-context-lines.js";
import type { GrepLine } from "./grep-ripgrep.js";

/** The lines printed for a whole file at once: every match and `context` lines around it, once each. */
function reference(lines: readonly string[], matched: readonly number[], context: number): GrepLine[] {
  const keep = new Map<number, boolean>();
  for (const index of matched) {
    for (let near = Math.max(0, index - context); near <= Math.min(lines.length - 1, index + context); near++) {
      if (!keep.has(near)) keep.set(near, false);
    }
    keep.set(index, true);
  }
  return [...keep.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([index, match]) => ({ absolute: "f", number: index + 1, text: lines[index] as string, match }));
}

/** A small deterministic generator, so a failure names its seed. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
}

describe("ContextLines", () => {
  it("prints the same lines however the file is cut into pieces (pieces of one line, matches at the borders)", () => {
    for (let seed = 1; seed <= 300; seed++) {
      const next = random(seed);
      const count = 1 + Math.floor(next() * 40);
      const lines = Array.from({ length: count }, (_, index) => (next() < 0.2 ? `needle ${index}` : `line ${index}`));
      const matched = lines.flatMap((line, index) => (line.startsWith("needle") ? [index] : []));
      const context = Math.floor(next() * 4);
      const printed: GrepLine[] = [];
      const printer = new ContextLines("f", context, (line) => {
        printed.push(line);
        return false;
      });
      for (let start = 0; start < count; ) {
        const size = 1 + Math.floor(next() * 5);
        const piece = lines.slice(start, start + size);
        const inPiece = matched.filter((index) => index >= start && index < start + size).map((index) => index - start);
        printer.piece(piece, start + 1, inPiece);
        start += size;
      }
      expect(printed, `seed ${seed}`).toEqual(reference(lines, matched, context));
    }
  });

  it("stops when emit asks to (the result limit)", () => {
    const lines = ["a", "needle", "b", "needle", "c"];
    const printed: GrepLine[] = [];
    let matches = 0;
    const printer = new ContextLines("f", 1, (line) => {
      if (line.match && ++matches > 1) return true;
      printed.push(line);
      return false;
    });
    expect(printer.piece(lines, 1, [1, 3])).toBe(true);
    expect(printed.map((line) => line.number)).toEqual([1, 2, 3]);
  });

  it("splits on \\n only, a final \\n ending the last line", () => {
    expect(splitLines("a\r\nb\n")).toEqual(["a\r", "b"]);
    expect(splitLines("a\n\nb")).toEqual(["a", "", "b"]);
    expect(splitLines("")).toEqual([""]);
  });
});
