/**
 * `npm run bench`: runs every benchmark, writes bench/results/*.json and bench/results/summary.md,
 * and puts the summary into the README between the bench markers.
 *   --quick   smaller sizes, for a smoke run
 *   --only=a,b  run only some sections: search-quality, search-speed, call-overhead, root-import, tokens, grep, patch, git, redis
 *   GIT_BENCH_REPOSITORY=/path  also measure the git tools on a real clone with long history
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { createUseEmbedder } from "../src/use-embedder/index.js";
import { measureCallOverhead } from "./call-overhead.js";
import { runCoreSoak } from "./core/core-soak.js";
import { measureRootImport } from "./core/root-import.js";
import { renderGitBench, runGitBench, runGitBenchOnRepository } from "./git/git-bench.js";
import { updateReadme } from "./readme-section.js";
import { renderRedisBench, runRedisBench } from "./redis/redis-bench.js";
import { fileCachedEmbedder } from "./search/cached-embedder.js";
import { retrievalDatasets } from "./search/datasets.js";
import { loadMetatool } from "./search/metatool-data.js";
import { measureSearchQuality } from "./search/search-quality.js";
import { measureSearchSpeed } from "./search/search-speed.js";
import { type BenchResults, renderSummary } from "./summary.js";
import { measureTokenFootprint } from "./tokens/token-footprint.js";
import { measureGrep } from "./tools/grep-bench.js";
import { measureApplyPatch } from "./tools/patch-bench.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const resultsDirectory = join(root, "bench", "results");
const quick = process.argv.includes("--quick");
const only = process.argv
  .find((arg) => arg.startsWith("--only="))
  ?.slice("--only=".length)
  .split(",");
const wanted = (section: string) => only === undefined || only.includes(section);

function save(name: string, value: unknown): void {
  writeFileSync(join(resultsDirectory, `${name}.json`), `${JSON.stringify(value, null, 2)}\n`);
  console.log(`wrote bench/results/${name}.json`);
}

mkdirSync(resultsDirectory, { recursive: true });
const data = loadMetatool();
const machine = {
  node: process.version,
  cpus: cpus().length,
  cpuModel: cpus()[0]?.model ?? "unknown",
  date: new Date().toISOString().slice(0, 10),
};
const results: { -readonly [K in keyof BenchResults]: BenchResults[K] } = { machine };

const datasets = retrievalDatasets();
if (wanted("search-quality")) {
  // The shipped-weights model (a dev dependency); its vectors are cached under node_modules/.cache
  // so that reruns embed only new texts.
  const embedder = fileCachedEmbedder(
    createUseEmbedder(),
    join(root, "node_modules", ".cache", "agent-tool-catalog-bench", "use-lite.jsonl"),
  );
  results.searchQuality = await measureSearchQuality(datasets, embedder);
  save("search-quality", { machine, results: results.searchQuality });
}
if (wanted("search-speed")) {
  results.searchSpeed = measureSearchSpeed(data, datasets, quick ? [527, 2_000] : [527, 20_000, 100_000]);
  save("search-speed", { machine, loadAverage: loadavg(), results: results.searchSpeed });
}
if (wanted("call-overhead")) {
  results.callOverhead = await measureCallOverhead(quick ? 2_000 : 20_000);
  save("call-overhead", { machine, results: results.callOverhead });
}

if (wanted("root-import")) {
  // Needs the built entry (npm run build); each sample is a fresh process.
  if (existsSync(join(root, "dist", "index.js"))) save("root-import", { machine, results: measureRootImport(quick ? 5 : 15) });
  else console.log("skipped root-import: run `npm run build` first");
}

if (wanted("core-soak")) {
  const sizes = quick ? { registries: 50, runs: 500, calls: 2_000 } : { registries: 500, runs: 5_000, calls: 20_000 };
  save("core-soak", { machine, results: await runCoreSoak(sizes) });
}

if (wanted("tokens")) {
  results.tokenFootprint = measureTokenFootprint(data, [50, 200, 1_000]);
  save("token-footprint", { machine, tokenizer: "o200k_base (gpt-tokenizer)", results: results.tokenFootprint });
}

if (wanted("grep")) {
  // A real source tree that every checkout has after `npm ci`.
  results.grep = await measureGrep(
    join(root, "node_modules", "zod"),
    ["ZodType", "export (const|function) \\w+Schema", "TODO|FIXME"],
    quick ? 2 : 7,
  );
  save("grep", { machine, results: results.grep });
}

if (wanted("patch")) {
  results.applyPatch = await measureApplyPatch(20_000, 50, quick ? 2 : 7);
  save("apply-patch", { machine, results: results.applyPatch });
}

if (wanted("git")) {
  const synthetic = await runGitBench(quick ? { commits: 2_000, runs: 2 } : { commits: 10_000, runs: 5 });
  const extra = [renderGitBench(synthetic)];
  const clone = process.env.GIT_BENCH_REPOSITORY;
  const real = clone === undefined ? undefined : await runGitBenchOnRepository(clone, { runs: quick ? 2 : 5 });
  if (real !== undefined) extra.push(renderGitBench(real));
  results.extraMarkdown = [...(results.extraMarkdown ?? []), ...extra];
  save("git-tools", { machine, synthetic, real: real ?? "not run: set GIT_BENCH_REPOSITORY to a clone with long history" });
}

if (wanted("redis")) {
  const redis = await runRedisBench({ quick });
  results.extraMarkdown = [...(results.extraMarkdown ?? []), renderRedisBench(redis)];
  save("redis", { machine, results: redis });
}

// With --only, the sections not run now keep the figures of their last full run.
function previous(name: string): { results?: unknown; synthetic?: unknown; real?: unknown } | undefined {
  const file = join(resultsDirectory, `${name}.json`);
  return existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as { results?: unknown }) : undefined;
}
if (only !== undefined && !quick) {
  const fill = <K extends keyof BenchResults>(key: K, section: string, file: string) => {
    if (!wanted(section) && results[key] === undefined) results[key] = previous(file)?.results as BenchResults[K];
  };
  fill("searchQuality", "search-quality", "search-quality");
  fill("searchSpeed", "search-speed", "search-speed");
  fill("callOverhead", "call-overhead", "call-overhead");
  fill("tokenFootprint", "tokens", "token-footprint");
  fill("grep", "grep", "grep");
  fill("applyPatch", "patch", "apply-patch");
  const git = wanted("git") ? undefined : previous("git-tools");
  if (git?.synthetic !== undefined)
    results.extraMarkdown = [renderGitBench(git.synthetic as Parameters<typeof renderGitBench>[0])];
}

const summary = renderSummary(results);
writeFileSync(join(resultsDirectory, "summary.md"), `${summary}\n`);
if (!quick) updateReadme(join(root, "README.md"), summary);
console.log(summary);
