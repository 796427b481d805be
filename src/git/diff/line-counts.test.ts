import { describe, expect, it } from "vitest";
import { seededRandom } from "../../../bench/stats.js";
import { lineChangeCounts } from "./line-counts.js";
import { countChanges, diffLines } from "./line-diff.js";
import { splitLines } from "./text.js";

/** The counts of the full line diff (decoded lines, slid groups), which the byte path must reproduce. */
const reference = (before: string, after: string) =>
  countChanges(diffLines(splitLines(Buffer.from(before)), splitLines(Buffer.from(after))));
const counts = (before: string, after: string) => lineChangeCounts(Buffer.from(before), Buffer.from(after));

describe("lineChangeCounts", () => {
  it("counts as the full line diff does at the edges: missing final newlines, overlapping ends, empty sides", () => {
    const cases: [string, string][] = [
      ["a\nb", "a\nb\n"],
      ["a\nb\n", "a\nb"],
      ["a\nb", "a\nb\nc"],
      ["x", "y"],
      ["xc", "yc"],
      ["a\na\n", "a\n"],
      ["a\n", "a\na\na\n"],
      ["", "a\nb\n"],
      ["a\nb\n", ""],
      ["a\nb\n", "b\n"],
      ["x\ny\n", "x\nz\ny\n"],
      ["same\r\nline\r\n", "same\r\nline\n"],
      ["}\n}\n}\n", "}\n}\n"],
      ["p\nq\nr\ns\n", "p\nQ\nr\nS\n"],
      // A common end that starts inside a line: only whole lines count as common.
      ["ab\n", "b\n"],
      ["line 12\nline 3\n", "line 2\nline 3\n"],
      ["k\nline 12\n", "k\nline 12\nline 2\n"],
      ["k\nxline 2\n", "k\nline 2\n"],
    ];
    for (const [before, after] of cases)
      expect(counts(before, after), JSON.stringify([before, after])).toEqual(reference(before, after));
  });

  it("counts as the full line diff does on 3,000 random edits of files with repeated lines", () => {
    const random = seededRandom(7);
    const pick = (alphabet: number) => (random() < 0.1 ? "}" : `line ${Math.floor(random() * alphabet)}`);
    for (let round = 0; round < 3000; round++) {
      const alphabet = 3 + Math.floor(random() * 40);
      const lines = Array.from({ length: Math.floor(random() * 60) }, () => pick(alphabet));
      const edited = [...lines];
      for (let edits = Math.floor(random() * 4); edits > 0; edits--) {
        const at = Math.floor(random() * (edited.length + 1));
        const kind = random();
        if (kind < 0.4) edited.splice(at, 0, ...Array.from({ length: 1 + Math.floor(random() * 3) }, () => pick(alphabet)));
        else if (kind < 0.7) edited.splice(at, 1 + Math.floor(random() * 3));
        else edited.splice(at, 1, pick(alphabet));
      }
      const end = (text: string[], newline: boolean) => (text.length === 0 ? "" : `${text.join("\n")}${newline ? "\n" : ""}`);
      const before = end(lines, random() < 0.8);
      const after = end(edited, random() < 0.8);
      expect(counts(before, after), JSON.stringify([before, after])).toEqual(reference(before, after));
    }
  });
});
