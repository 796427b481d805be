/**
 * Some rows of the git bench on their own, on the generated history without and with changed-path
 * Bloom filters: `node --expose-gc --import tsx bench/git/run-git-rows.ts <output.json> <label>...`
 * (GIT_BENCH_RUNS runs, default 5). For re-measuring the rows a change touched without a whole
 * bench run; the README's tables come from `run-git-bench.ts` only.
 */
import { writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { renderGitBench, runGitBench } from "./git-bench.js";

const [file, ...only] = process.argv.slice(2);
if (file === undefined || only.length === 0) throw new Error("usage: run-git-rows.ts <output.json> <label>...");
const runs = Number(process.env.GIT_BENCH_RUNS ?? 5);
const synthetic = await runGitBench({ runs, only });
console.log(renderGitBench(synthetic));
const changedPaths = await runGitBench({ runs, changedPaths: true, only });
console.log(`\n${renderGitBench(changedPaths)}`);
const machine = {
  node: process.version,
  cpus: cpus().length,
  cpuModel: cpus()[0]?.model ?? "unknown",
  date: new Date().toISOString().slice(0, 10),
  loadAverage: loadavg().map((load) => Math.round(load * 100) / 100),
};
writeFileSync(file, `${JSON.stringify({ machine, synthetic, syntheticChangedPaths: changedPaths }, null, 2)}\n`);
