/**
 * The git section of the bench on its own: `node --expose-gc --import tsx bench/git/run-git-bench.ts [repository]`.
 * Measures the generated 20,000-commit history (its commit-graph without, then with changed-path
 * Bloom filters), and the repository given as argument or in
 * GIT_BENCH_REPOSITORY if any; writes bench/results/git-tools.json (the same file `npm run bench` writes).
 */
import { writeFileSync } from "node:fs";
import { cpus } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { renderGitBench, runGitBench, runGitBenchOnRepository } from "./git-bench.js";

const runs = Number(process.env.GIT_BENCH_RUNS ?? 3);
const repository = process.argv[2] ?? process.env.GIT_BENCH_REPOSITORY;
const synthetic = await runGitBench({ runs });
console.log(renderGitBench(synthetic));
const changedPaths = await runGitBench({ runs, changedPaths: true });
console.log(`\n${renderGitBench(changedPaths)}`);
const real = repository === undefined ? undefined : await runGitBenchOnRepository(repository, { runs });
if (real !== undefined) console.log(`\n${renderGitBench(real)}`);
const machine = {
  node: process.version,
  cpus: cpus().length,
  cpuModel: cpus()[0]?.model ?? "unknown",
  date: new Date().toISOString().slice(0, 10),
};
const file = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "results", "git-tools.json");
writeFileSync(
  file,
  `${JSON.stringify({ machine, synthetic, syntheticChangedPaths: changedPaths, real: real ?? "not run: pass a repository path or set GIT_BENCH_REPOSITORY" }, null, 2)}\n`,
);
