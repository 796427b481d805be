/**
 * `npm run bench`: runs every benchmark, writes bench/results/*.json and bench/results/summary.md,
 * and puts the summary into the README between the bench markers.
 *   --quick   smaller sizes, for a smoke run
 *   --only=a,b  run only some sections: search-quality, search-held-out, search-speed, index-cost, index-cost-100k (only when named: ~50 CPU-s), registry-scale, call-overhead, plain-json-copy, root-import, bwrap-start, mcp-notification-flood, mcp-schema-check, tokens, grep, grep-ignored-tree, patch, file-integrity, file-transaction-cost, git, git-delta-chain, sandbox-git-walk, mcp-heap, mcp-spawn-descriptors, redis
 *   GIT_BENCH_REPOSITORY=/path  also measure the git tools on a real clone with long history
 *   BENCH_TREE_DIRS=/a,/b  measure apply_patch against git apply with the trees in each directory
 *                          (default: the temporary directory); the table names each one's file system
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { createUseEmbedder } from "../src/use-embedder/index.js";
import { measureCallOverhead } from "./call-overhead.js";
import { runCoreSoak } from "./core/core-soak.js";
import { measurePlainJsonCopy, renderPlainJsonCopy } from "./core/plain-json-copy.js";
import { measureRegistryScale, renderRegistryScale } from "./core/registry-scale.js";
import { measureRootImport, renderRootImport } from "./core/root-import.js";
import { measureDeltaChain, renderDeltaChain } from "./git/delta-chain-bench.js";
import { renderGitBench, runGitBench, runGitBenchOnRepository } from "./git/git-bench.js";
import { measureMcpHeap } from "./mcp/mcp-heap.js";
import { measureNotificationFlood, renderNotificationFlood } from "./mcp/notification-flood-bench.js";
import { measureSchemaCheckHold, renderSchemaCheckHold } from "./mcp/schema-check-bench.js";
import { measureSpawnDescriptors, renderSpawnDescriptors } from "./mcp/spawn-descriptors.js";
import { updateReadme } from "./readme-section.js";
import { renderRedisBench, runRedisBench } from "./redis/redis-bench.js";
import { fileCachedEmbedder } from "./search/cached-embedder.js";
import { blindHeldOutDatasets, retrievalDatasets } from "./search/datasets.js";
import { compareSplits, renderHeldOut } from "./search/held-out.js";
import { measureIndexCost, renderIndexCost } from "./search/index-cost.js";
import { loadMetatool } from "./search/metatool-data.js";
import { measureSearchQuality } from "./search/search-quality.js";
import { measureSearchSpeed } from "./search/search-speed.js";
import { type BenchResults, renderSummary } from "./summary.js";
import { measureTokenFootprint } from "./tokens/token-footprint.js";
import { measureBwrapStart, renderBwrapStart } from "./tools/bwrap-start.js";
import {
  benchTreeDirectories,
  measureLockedWrites,
  measureMultiFilePatch,
  multiFileDiffs,
  renderFileIntegrity,
  runCrashLoop,
} from "./tools/file-integrity-bench.js";
import { measureTransactionCost, renderTransactionCost, TRANSACTION_CASES } from "./tools/file-transaction-cost.js";
import { measureGrep, renderGrep } from "./tools/grep-bench.js";
import { measureGrepIgnoredTree, renderGrepIgnoredTree } from "./tools/grep-ignored-tree.js";
import { measureApplyPatch } from "./tools/patch-bench.js";
import { measureSandboxGitWalk, renderSandboxGitWalk } from "./tools/sandbox-git-walk-bench.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const resultsDirectory = join(root, "bench", "results");
const quick = process.argv.includes("--quick");
const only = process.argv
  .find((arg) => arg.startsWith("--only="))
  ?.slice("--only=".length)
  .split(",");
const wanted = (section: string) => only === undefined || only.includes(section);
// Sections too long for every run (each case of a default run stays under 30 s): run when named.
const named = (section: string) => only?.includes(section) === true;

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
// Sections that add their own markdown to the summary, in README order. Each saves its markdown
// with its results, so a run with --only keeps the others' figures from their last run.
const EXTRA_SECTIONS = [
  { section: "search-held-out", file: "search-held-out" },
  { section: "index-cost", file: "index-cost" },
  { section: "index-cost-100k", file: "index-cost-100k" },
  { section: "registry-scale", file: "registry-scale" },
  { section: "plain-json-copy", file: "plain-json-copy" },
  { section: "root-import", file: "root-import" },
  { section: "grep", file: "grep" },
  { section: "grep-ignored-tree", file: "grep-ignored-tree" },
  { section: "file-integrity", file: "file-integrity" },
  { section: "file-transaction-cost", file: "file-transaction-cost" },
  { section: "git", file: "git-tools" },
  { section: "git-delta-chain", file: "git-delta-chain" },
  { section: "sandbox-git-walk", file: "sandbox-git-walk" },
  { section: "bwrap-start", file: "bwrap-start" },
  { section: "mcp-spawn-descriptors", file: "mcp-spawn-descriptors" },
  { section: "mcp-notification-flood", file: "mcp-notification-flood" },
  { section: "mcp-schema-check", file: "mcp-schema-check" },
  { section: "redis", file: "redis" },
] as const;
const extras = new Map<string, string[]>();

const datasets = retrievalDatasets();
if (wanted("search-quality")) {
  // The shipped-weights model (a dev dependency); its vectors are cached under node_modules/.cache
  // so that reruns embed only new texts.
  const embedder = fileCachedEmbedder(
    createUseEmbedder(),
    join(root, "node_modules", ".cache", "agent-tool-catalog-bench", "use-lite.jsonl"),
  );
  results.searchQuality = await measureSearchQuality([...datasets, ...blindHeldOutDatasets()], embedder);
  save("search-quality", { machine, results: results.searchQuality });
}
if (wanted("search-held-out")) {
  const heldOut = compareSplits();
  const markdown = [renderHeldOut(heldOut)];
  extras.set("search-held-out", markdown);
  save("search-held-out", { machine, results: heldOut, markdown });
}
if (wanted("search-speed")) {
  results.searchSpeed = measureSearchSpeed(data, datasets, quick ? [527, 2_000] : [527, 20_000, 100_000]);
  results.searchSpeedLoad = loadavg();
  save("search-speed", { machine, loadAverage: results.searchSpeedLoad, results: results.searchSpeed });
}
if (wanted("index-cost")) {
  // The search index's CPU per tool against the registry's plain register of the same catalog.
  const indexCost = [measureIndexCost(quick ? 2_000 : 20_000, 3)];
  const markdown = [renderIndexCost(indexCost)];
  extras.set("index-cost", markdown);
  save("index-cost", { machine, results: indexCost, markdown });
}
if (named("index-cost-100k")) {
  // The same at 100,000 tools, with the full collections the index's typed arrays start.
  const indexCost = [measureIndexCost(100_000, 3)];
  const markdown = [
    renderIndexCost(indexCost, "### Search index cost per tool at 100,000 tools (run when named: --only=index-cost-100k)"),
  ];
  extras.set("index-cost-100k", markdown);
  save("index-cost-100k", { machine, results: indexCost, markdown });
}
if (wanted("registry-scale")) {
  const scale = await measureRegistryScale(data, quick ? [1_000, 10_000] : [1_000, 10_000, 20_000, 50_000, 100_000]);
  const markdown = [renderRegistryScale(scale, machine.cpus)];
  extras.set("registry-scale", markdown);
  save("registry-scale", { machine, ...scale, markdown });
}
if (wanted("call-overhead")) {
  results.callOverhead = await measureCallOverhead(quick ? 2_000 : 20_000);
  save("call-overhead", { machine, results: results.callOverhead });
}

if (wanted("plain-json-copy")) {
  // The run's copy of a call's arguments against the copy through the JSON text.
  const copy = measurePlainJsonCopy(quick ? 3 : 5);
  const markdown = [renderPlainJsonCopy(copy)];
  extras.set("plain-json-copy", markdown);
  save("plain-json-copy", { machine, results: copy, markdown });
}

if (wanted("root-import")) {
  // Measures the built entry, so it builds first: a fresh clone has no dist/, and an old dist/
  // would time old code. Each sample is a fresh process.
  const build = spawnSync("npm", ["run", "build"], { cwd: root, stdio: ["ignore", "ignore", "inherit"] });
  if (build.status !== 0 || !existsSync(join(root, "dist", "index.js"))) throw new Error("root-import: `npm run build` failed");
  const rootImport = measureRootImport(quick ? 5 : 9);
  const markdown = [renderRootImport(rootImport)];
  extras.set("root-import", markdown);
  save("root-import", { machine, results: rootImport, markdown });
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
  // Real trees: zod (every checkout has it after `npm ci`), the whole node_modules (nested
  // node_modules skipped by both), and /usr/share when present; patterns under 5000 matches.
  const trees: [string, string[]][] = [
    [join(root, "node_modules", "zod"), ["ZodType", "export (const|function) \\w+Schema", "TODO|FIXME"]],
    [join(root, "node_modules"), ["ZodType", "export (const|function) \\w+Schema", "process\\.env\\.\\w+"]],
  ];
  if (!quick && existsSync("/usr/share"))
    trees.push(["/usr/share", ["GNU General Public License", "Copyright \\(C\\) 199[0-9]"]]);
  const grepResults = [];
  for (const [directory, patterns] of trees) grepResults.push(await measureGrep(directory, patterns, quick ? 2 : 5));
  if (grepResults[0] !== undefined) results.grep = grepResults[0];
  const load = loadavg();
  const markdown = [renderGrep(grepResults, load, cpus().length)];
  extras.set("grep", markdown);
  save("grep", { machine, loadAverage: load, results: grepResults[0], trees: grepResults, markdown });
}

if (wanted("grep-ignored-tree")) {
  // A gitignored .venv of 20,000 directories: grep with and without it, and rg on the same tree.
  const ignoredTree = await measureGrepIgnoredTree(3, quick ? 2_000 : 20_000);
  const markdown = [renderGrepIgnoredTree(ignoredTree)];
  extras.set("grep-ignored-tree", markdown);
  save("grep-ignored-tree", { machine, results: ignoredTree, markdown });
}

if (wanted("patch")) {
  results.applyPatch = await measureApplyPatch(20_000, 50, quick ? 2 : 7);
  save("apply-patch", { machine, results: results.applyPatch });
}

if (wanted("file-integrity")) {
  const multiFile = [];
  const diffs = await multiFileDiffs(quick ? 100 : 500, quick ? 100 : 509);
  // The ratio to git apply depends on the file system the trees are on (stop 56): each directory
  // of BENCH_TREE_DIRS is measured, e.g. a journaled mount beside this machine's disk.
  for (const treeDirectory of benchTreeDirectories())
    for (const diff of diffs) {
      const row = await measureMultiFilePatch(diff, quick ? 2 : 5, treeDirectory);
      // Each row as it is measured: the locks and the kill -9 loop after them take minutes.
      console.log(JSON.stringify({ ...row, loadAverage: loadavg() }));
      multiFile.push(row);
    }
  const locks = [];
  for (const [writers, processes] of [
    [1, 1],
    [8, 1],
    [32, 1],
    [8, 4],
    [32, 4],
  ] as const)
    locks.push(await measureLockedWrites(quick ? Math.min(writers, 8) : writers, processes));
  const crash = await runCrashLoop(quick ? 9 : 102);
  const load = loadavg();
  const markdown = [renderFileIntegrity(multiFile, locks, crash, load)];
  extras.set("file-integrity", markdown);
  save("file-integrity", { machine, loadAverage: load, multiFile, locks, crash, markdown });
}

if (wanted("file-transaction-cost")) {
  // A multi-file change's transaction (locks, intent log, flushes, restore copies) against the same
  // change written plainly, in child processes under the group tests' open-file limit.
  const transactions = [];
  for (const shape of TRANSACTION_CASES) transactions.push(await measureTransactionCost(shape, quick ? 1 : 3));
  const markdown = [renderTransactionCost(transactions)];
  extras.set("file-transaction-cost", markdown);
  save("file-transaction-cost", { machine, loadAverage: loadavg(), results: transactions, markdown });
}

if (wanted("git")) {
  const synthetic = await runGitBench(quick ? { commits: 2_000, runs: 2 } : { commits: 20_000, runs: 5 });
  const changedPaths = await runGitBench({
    ...(quick ? { commits: 2_000, runs: 2 } : { commits: 20_000, runs: 5 }),
    changedPaths: true,
  });
  const extra = [renderGitBench(synthetic), renderGitBench(changedPaths)];
  const clone = process.env.GIT_BENCH_REPOSITORY;
  const real = clone === undefined ? undefined : await runGitBenchOnRepository(clone, { runs: quick ? 2 : 5 });
  if (real !== undefined) extra.push(renderGitBench(real));
  extras.set("git", extra);
  save("git-tools", {
    machine,
    loadAverage: loadavg(),
    synthetic,
    syntheticChangedPaths: changedPaths,
    real: real ?? "not run: set GIT_BENCH_REPOSITORY to a clone with long history",
    markdown: extra,
  });
}

if (wanted("git-delta-chain")) {
  // A blame at the end of a 24-link delta chain of large objects against git blame (the r33
  // control's 64 MiB links cost 6.6 CPU-s before the links shared two buffers; 24 MiB shows it).
  const chain = await measureDeltaChain(24, quick ? 20 : 24, quick ? 1 : 3);
  const markdown = [renderDeltaChain(chain)];
  extras.set("git-delta-chain", markdown);
  save("git-delta-chain", { machine, results: chain, markdown });
}

if (wanted("sandbox-git-walk")) {
  // Host CPU of the git-directory walk after a sandboxed command: loose objects listed or skipped,
  // and a flood of directories past the walk's bound. Skipped (and said so) without bubblewrap.
  const walk = await measureSandboxGitWalk(
    quick ? [6_700] : [6_700, 50_000],
    quick ? 2_000 : 10_000,
    quick ? 3 : 9,
    quick ? 1 : 3,
  );
  const markdown = [renderSandboxGitWalk(walk)];
  extras.set("sandbox-git-walk", markdown);
  save("sandbox-git-walk", { machine, results: walk, markdown });
}

if (wanted("bwrap-start")) {
  // `true` under bare bwrap and through the sandbox driver against a plain spawn, in the same rounds.
  const bwrap = await measureBwrapStart(quick ? 5 : 10, 3);
  const markdown = [renderBwrapStart(bwrap)];
  extras.set("bwrap-start", markdown);
  save("bwrap-start", { machine, results: bwrap, markdown });
}

if (wanted("mcp-notification-flood")) {
  // A stdio MCP server's call that sends 100,000 notifications of a kind, against the same call without them.
  const flood = await measureNotificationFlood(quick ? 10_000 : 100_000, 3);
  const markdown = [renderNotificationFlood(flood)];
  extras.set("mcp-notification-flood", markdown);
  save("mcp-notification-flood", { machine, results: flood, markdown });
}

if (wanted("mcp-schema-check")) {
  // A server's slow input schemas through the schema check thread against the same check on the host's thread.
  const schemaCheck = await measureSchemaCheckHold(quick ? 18 : 22, 3);
  const markdown = [renderSchemaCheckHold(schemaCheck)];
  extras.set("mcp-schema-check", markdown);
  save("mcp-schema-check", { machine, results: schemaCheck, markdown });
}

if (wanted("mcp-spawn-descriptors")) {
  // The descriptor scan a stdio MCP server's spawn makes, in a host holding 10 to 10,000 inherited
  // descriptors, against a plain spawn in the same host and rounds.
  const spawns = [];
  for (const count of [10, 1_000, 10_000]) spawns.push(await measureSpawnDescriptors(count, quick ? 3 : 15));
  const markdown = [renderSpawnDescriptors(spawns)];
  extras.set("mcp-spawn-descriptors", markdown);
  save("mcp-spawn-descriptors", { machine, loadAverage: loadavg(), results: spawns, markdown });
}

if (wanted("redis")) {
  const redis = await runRedisBench({ quick });
  const markdown = [renderRedisBench(redis)];
  extras.set("redis", markdown);
  save("redis", { machine, loadAverage: loadavg(), results: redis, markdown });
}

if (wanted("mcp-heap")) {
  // Issue 15.3: heap per MCP call on one run must stay flat (no listener kept per call).
  const mcpHeap = await measureMcpHeap(quick ? 2_000 : 20_000);
  save("mcp-heap", { machine, results: mcpHeap });
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
  const searchSpeedLoad = (previous("search-speed") as { loadAverage?: number[] } | undefined)?.loadAverage;
  if (!wanted("search-speed") && searchSpeedLoad !== undefined) results.searchSpeedLoad = searchSpeedLoad;
}
results.extraMarkdown = EXTRA_SECTIONS.flatMap(({ section, file }) => {
  const now = extras.get(section);
  if (now !== undefined) return now;
  // A section run only when named keeps its last figures in a full run too.
  if ((only === undefined && section !== "index-cost-100k") || quick) return [];
  const saved = previous(file) as { markdown?: unknown } | undefined;
  return Array.isArray(saved?.markdown) ? (saved.markdown as string[]) : [];
});

const summary = renderSummary(results);
writeFileSync(join(resultsDirectory, "summary.md"), `${summary}\n`);
if (!quick) updateReadme(join(root, "README.md"), summary);
console.log(summary);
