import { describe, expect, it } from "vitest";
import { seededRandom } from "../../../bench/stats.js";
import { countChanges, diffLines } from "./line-diff.js";

function longestCommonSubsequence(a: readonly string[], b: readonly string[]): number {
  const row = new Array<number>(b.length + 1).fill(0);
  for (let i = a.length - 1; i >= 0; i--) {
    let diagonal = 0;
    for (let j = b.length - 1; j >= 0; j--) {
      const kept = row[j] ?? 0;
      row[j] = a[i] === b[j] ? diagonal + 1 : Math.max(row[j] ?? 0, row[j + 1] ?? 0);
      diagonal = kept;
    }
  }
  return row[0] ?? 0;
}

describe("diffLines", () => {
  it("finds a minimal edit that turns the old lines into the new ones (2,000 random cases)", () => {
    const random = seededRandom(42);
    for (let round = 0; round < 2000; round++) {
      const alphabet = 1 + Math.floor(random() * 6);
      const make = () => Array.from({ length: Math.floor(random() * 25) }, () => String(Math.floor(random() * alphabet)));
      const [a, b] = [make(), make()];
      const diff = diffLines(a, b);
      expect(a.filter((_, index) => diff.removed[index] === 0)).toEqual(b.filter((_, index) => diff.added[index] === 0));
      const common = longestCommonSubsequence(a, b);
      expect(countChanges(diff), `${a.join("")} -> ${b.join("")}`).toEqual({
        added: b.length - common,
        removed: a.length - common,
      });
    }
  });

  it("places an ambiguous insertion or deletion as low as it can go, as git does", () => {
    expect([...diffLines(["a", "}", "b"], ["a", "}", "}", "b"]).added]).toEqual([0, 0, 1, 0]);
    expect([...diffLines(["x", "y", "x", "y", "z"], ["x", "y", "z"]).removed]).toEqual([0, 0, 1, 1, 0]);
    // Cases where the plain Myers result differs from git's (checked with git diff --no-index).
    const first = diffLines(["b", "a", "c", "b"], ["b", "c", "b", "b"]);
    expect([[...first.removed], [...first.added]]).toEqual([
      [0, 1, 0, 0],
      [0, 0, 0, 1],
    ]);
    expect([...diffLines(["c", "c", "b"], ["c", "b", "c", "b", "b"]).added]).toEqual([0, 1, 0, 0, 1]);
  });

  it("stays fast on large files with scattered changes", () => {
    const old = Array.from({ length: 20_000 }, (_, index) => `line ${index % 5000}`);
    const changed = old.map((line, index) => (index % 7 === 0 ? `${line}!` : line));
    const started = performance.now();
    expect(countChanges(diffLines(old, changed))).toEqual({ added: 2858, removed: 2858 });
    expect(performance.now() - started).toBeLessThan(2000);
  });
});
