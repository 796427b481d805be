import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { seededRandom } from "../../../bench/stats.js";
import { cpuMsOf } from "../../../test/support/cpu-time.js";
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
  it("finds a valid edit, minimal when no line repeats often (2,000 random cases)", () => {
    const random = seededRandom(42);
    for (let round = 0; round < 2000; round++) {
      // With few repeats xdiff discards nothing, so its answer is a minimal one; lines repeated
      // sqrt(n) times may be discarded first (as git does), which is checked against git below.
      const alphabet = 60 + Math.floor(random() * 6);
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

  it("marks the same lines as git diff --no-index, repeated lines included (150 random cases)", () => {
    const random = seededRandom(7);
    const directory = mkdtempSync(path.join(tmpdir(), "atc-line-diff-"));
    try {
      for (let round = 0; round < 150; round++) {
        const alphabet = 2 + Math.floor(random() * 5);
        const pool = ["}", "", "  return x;", "\tif (y) {", "  z++;", "a", "b"];
        const make = () =>
          Array.from({ length: 5 + Math.floor(random() * 40) }, () => pool[Math.floor(random() * alphabet)] ?? "");
        const [a, b] = [make(), make()];
        writeFileSync(path.join(directory, "a"), `${a.join("\n")}\n`);
        writeFileSync(path.join(directory, "b"), `${b.join("\n")}\n`);
        const result = spawnSync("git", ["diff", "--no-index", "--no-color", "-U0", "a", "b"], {
          cwd: directory,
          encoding: "utf8",
        });
        const removed = new Array<number>(a.length).fill(0);
        const added = new Array<number>(b.length).fill(0);
        for (const match of result.stdout.matchAll(/^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/gm)) {
          const [oldStart, oldCount, newStart, newCount] = [match[1], match[2] ?? "1", match[3], match[4] ?? "1"].map(Number);
          for (let index = 0; index < (oldCount ?? 0); index++) removed[(oldStart ?? 0) - 1 + index] = 1;
          for (let index = 0; index < (newCount ?? 0); index++) added[(newStart ?? 0) - 1 + index] = 1;
        }
        const diff = diffLines(a, b);
        expect([[...diff.removed], [...diff.added]], JSON.stringify([a, b])).toEqual([removed, added]);
      }
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
    // A hang guard only (nothing here is bounded in time): 150 git processes one after another took
    // 6.7-10.7 s at load 17-22 on 2 cores, half of the 20 s default.
  }, 60_000);

  it("stays fast on large files with scattered changes", () => {
    const old = Array.from({ length: 20_000 }, (_, index) => `line ${index % 5000}`);
    const changed = old.map((line, index) => (index % 7 === 0 ? `${line}!` : line));
    // CPU time, not wall time, which load stretches (this test took up to 1,015 ms at load 22).
    const { result, cpuMs } = cpuMsOf(() => countChanges(diffLines(old, changed)));
    expect(result).toEqual({ added: 2858, removed: 2858 });
    expect(cpuMs).toBeLessThan(2000);
  });
});
