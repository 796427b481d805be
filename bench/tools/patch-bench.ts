import { spawnSync } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { createRegistry } from "../../src/index.js";
import { createApplyPatchTool } from "../../src/tools/index.js";
import { median, round } from "../stats.js";

/** apply_patch on a large file, against GNU patch on the same unified diff. */
export interface PatchBenchResult {
  readonly fileBytes: number;
  readonly lines: number;
  readonly hunks: number;
  /** The unified diff through `run.call("apply_patch")` (plan, atomic write, journal). */
  readonly unifiedMs: number;
  /** The same change as a Codex patch. */
  readonly codexMs: number;
  /** GNU `patch` applying the unified diff, when installed. */
  readonly gnuPatchMs: number | undefined;
  /** unifiedMs / gnuPatchMs. */
  readonly ratio: number | undefined;
  /** True when the tool and GNU patch produced the same bytes. */
  readonly sameResult: boolean | undefined;
}

function makeFile(lines: number): string[] {
  return Array.from(
    { length: lines },
    (_, index) => `line ${index} ${"lorem ipsum dolor sit amet ".repeat(1)}value_${(index * 7919) % 1000}`,
  );
}

function patches(original: readonly string[], hunks: number): { unified: string; codex: string; expected: string } {
  const step = Math.floor(original.length / hunks);
  const unified = ["--- a/big.txt", "+++ b/big.txt"];
  const codex = ["*** Begin Patch", "*** Update File: big.txt"];
  const changed = [...original];
  for (let hunk = 0; hunk < hunks; hunk++) {
    const at = hunk * step + 5;
    const before = original.slice(at - 3, at);
    const old = original[at] as string;
    const after = original.slice(at + 1, at + 4);
    unified.push(
      `@@ -${at - 2},7 +${at - 2},7 @@`,
      ...before.map((l) => ` ${l}`),
      `-${old}`,
      `+${old} CHANGED`,
      ...after.map((l) => ` ${l}`),
    );
    codex.push("@@", ...before.map((l) => ` ${l}`), `-${old}`, `+${old} CHANGED`, ...after.map((l) => ` ${l}`));
    changed[at] = `${old} CHANGED`;
  }
  codex.push("*** End Patch");
  return { unified: `${unified.join("\n")}\n`, codex: codex.join("\n"), expected: `${changed.join("\n")}\n` };
}

/** Applies `hunks` hunks to a file of `lines` lines (about 1 MB at 20,000), `repeats` times each way. */
export async function measureApplyPatch(lines = 20_000, hunks = 50, repeats = 5): Promise<PatchBenchResult> {
  const directory = await mkdtemp(path.join(tmpdir(), "atc-patch-bench-"));
  try {
    const original = makeFile(lines);
    const originalText = `${original.join("\n")}\n`;
    const { unified, codex, expected } = patches(original, hunks);
    const target = path.join(directory, "big.txt");
    const run = createRegistry({ tools: [createApplyPatchTool()] }).createRun({
      profile: "full",
      permissions: { workspace: directory },
    });
    const timeTool = async (patch: string): Promise<number> => {
      const times: number[] = [];
      for (let attempt = 0; attempt < repeats; attempt++) {
        await writeFile(target, originalText);
        const start = performance.now();
        const result = await run.call("apply_patch", { patch });
        times.push(performance.now() - start);
        if (!result.ok) throw new Error(`apply_patch failed: ${result.error.message}`);
        if ((await readFile(target, "utf8")) !== expected) throw new Error("apply_patch produced the wrong content");
      }
      return median(times);
    };
    const unifiedMs = await timeTool(unified);
    const codexMs = await timeTool(codex);
    let gnuPatchMs: number | undefined;
    let sameResult: boolean | undefined;
    if (spawnSync("patch", ["--version"]).status === 0) {
      const diffPath = path.join(directory, "change.diff");
      await writeFile(diffPath, unified);
      const times: number[] = [];
      for (let attempt = 0; attempt < repeats; attempt++) {
        await writeFile(target, originalText);
        const start = performance.now();
        const result = spawnSync("patch", ["-s", "-p1", "-i", diffPath], { cwd: directory });
        times.push(performance.now() - start);
        if (result.status !== 0) throw new Error(`GNU patch failed: ${String(result.stderr)}`);
      }
      gnuPatchMs = median(times);
      sameResult = (await readFile(target, "utf8")) === expected;
    }
    return {
      fileBytes: Buffer.byteLength(originalText),
      lines,
      hunks,
      unifiedMs: round(unifiedMs, 1),
      codexMs: round(codexMs, 1),
      gnuPatchMs: gnuPatchMs === undefined ? undefined : round(gnuPatchMs, 1),
      ratio: gnuPatchMs === undefined ? undefined : round(unifiedMs / gnuPatchMs, 2),
      sameResult,
    };
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}
