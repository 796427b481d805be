/**
 * A/B of building the search index in the registry: an earlier tree's `src` (copied to
 * `.ab-old/src`, e.g. `git archive <commit> src | tar -x -C .ab-old`) against this one, each run
 * in a process of its own (a variant's compiled tools, kept per definition, must not sit in the
 * other's heap and make its collections longer), alternating which goes first each round.
 * Per run: `createRegistry` with `indexInBackground: false`, then everything indexed
 * synchronously (`prepareSearch()` then a search), µs per tool of wall time and of CPU time
 * (the process's, garbage collector threads included: less sensitive to other load on the
 * machine than wall time), the full collections during indexing, and the heap after it; then
 * every query of the search-speed bench three times (p50 and p99 of all runs, and of each
 * query's best of three), and a digest of every query's hits (names and scores) that must be the
 * same for both variants. Last, the keyword rows of `bench/results/search-quality.json` are
 * recomputed with this tree and compared to the stored figures (they must not move).
 *   node --expose-gc --import tsx bench/search/index-build-ab.ts [size] [rounds]
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { constants, type PerformanceEntry, PerformanceObserver, performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { collectGarbage, median, percentile, round } from "../stats.js";
import { blindHeldOutDatasets, retrievalDatasets } from "./datasets.js";
import { loadMetatool } from "./metatool-data.js";
import { CONFIGURATIONS, measureSearchQuality, type SearchQualityResult } from "./search-quality.js";
import { speedQueries } from "./search-speed.js";
import { syntheticCatalog } from "./synthetic-catalog.js";

interface Run {
  create: number;
  createCpu: number;
  index: number;
  indexCpu: number;
  fullCollections: number;
  heapMb: number;
  queryP50: number;
  queryP99: number;
  queryP99BestOf3: number;
  /** SHA-256 of every query's hits (names and scores), in order. */
  hits: string;
}

async function child(variant: string, size: number): Promise<void> {
  const path = variant === "old" ? "../../.ab-old/src/index.js" : "../../src/index.js";
  const library = (await import(path)) as typeof import("../../src/index.js");
  // The catalog is built with the variant's own `defineTool` (it compiles and keeps each tool).
  const tools = syntheticCatalog(loadMetatool(), size, 7, library.defineTool);
  let fullCollections = 0;
  let counting = false;
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = (entry as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind;
      if (counting && kind === constants.NODE_PERFORMANCE_GC_MAJOR) fullCollections++;
    }
  });
  observer.observe({ entryTypes: ["gc"] });
  collectGarbage();
  const cpu = () => {
    const usage = process.cpuUsage();
    return (usage.user + usage.system) / 1000;
  };
  let started = performance.now();
  let cpuStarted = cpu();
  const registry = library.createRegistry({ tools, indexInBackground: false });
  const create = performance.now() - started;
  const createCpu = cpu() - cpuStarted;
  counting = true;
  started = performance.now();
  cpuStarted = cpu();
  registry.prepareSearch();
  registry.search("send a message to the team");
  const index = performance.now() - started;
  const indexCpu = cpu() - cpuStarted;
  // Entries of the collections above are delivered asynchronously.
  await new Promise((resolve) => setTimeout(resolve, 50));
  counting = false;
  observer.disconnect();
  collectGarbage();
  const heapMb = process.memoryUsage().heapUsed / 1e6;
  const queries = speedQueries(retrievalDatasets());
  const digest = createHash("sha256");
  for (const query of queries) digest.update(JSON.stringify(registry.search(query)));
  const times: number[] = [];
  const best = new Array<number>(queries.length).fill(Number.POSITIVE_INFINITY);
  for (let pass = 0; pass < 3; pass++)
    queries.forEach((query, q) => {
      const at = performance.now();
      registry.search(query);
      const took = performance.now() - at;
      times.push(took);
      best[q] = Math.min(best[q] as number, took);
    });
  const run: Run = {
    create,
    createCpu,
    index,
    indexCpu,
    fullCollections,
    heapMb,
    queryP50: percentile(times, 50),
    queryP99: percentile(times, 99),
    queryP99BestOf3: percentile(best, 99),
    hits: digest.digest("hex"),
  };
  console.log(JSON.stringify(run));
}

async function parent(size: number, rounds: number): Promise<void> {
  const script = fileURLToPath(import.meta.url);
  const runs: Record<string, Run[]> = { old: [], new: [] };
  const loads: number[] = [];
  for (let r = 0; r < rounds; r++) {
    for (const variant of r % 2 === 0 ? ["old", "new"] : ["new", "old"]) {
      loads.push(loadavg()[0] as number);
      const out = execFileSync(process.execPath, [...process.execArgv, script, String(size), "1", variant], { encoding: "utf8" });
      (runs[variant] as Run[]).push(JSON.parse(out.trim().split("\n").at(-1) as string) as Run);
    }
  }
  const perTool = (ms: number) => round((ms * 1000) / size, 1);
  const show = (rows: Run[]) =>
    `create ${perTool(median(rows.map((x) => x.create)))} µs/tool (cpu ${perTool(median(rows.map((x) => x.createCpu)))}), ` +
    `index ${perTool(median(rows.map((x) => x.index)))} µs/tool (cpu ${perTool(median(rows.map((x) => x.indexCpu)))}) ` +
    `[wall ms ${rows.map((x) => round(x.index, 0)).join(", ")}; cpu ms ${rows.map((x) => round(x.indexCpu, 0)).join(", ")}], ` +
    `full GCs while indexing ${rows.map((x) => x.fullCollections).join(", ")}, heap after ${round(median(rows.map((x) => x.heapMb)), 0)} MB, ` +
    `query p50 ${round(median(rows.map((x) => x.queryP50)), 3)} ms, p99 ${round(median(rows.map((x) => x.queryP99)), 3)} ms ` +
    `[${rows.map((x) => round(x.queryP99, 2)).join(", ")}], p99 of best of 3 ${round(median(rows.map((x) => x.queryP99BestOf3)), 3)} ms`;
  console.log(
    `${size} tools, ${rounds} rounds (separate processes, alternating), medians; 1-min load at each run start ${loads.map((l) => l.toFixed(1)).join(" ")}`,
  );
  console.log(`  old: ${show(runs.old as Run[])}`);
  console.log(`  new: ${show(runs.new as Run[])}`);
  const digests = new Set([...(runs.old as Run[]), ...(runs.new as Run[])].map((x) => x.hits));
  console.log(`  hits of every query (names and scores): ${digests.size === 1 ? "identical" : "DIFFERENT"} in all runs`);
}

/** The keyword rows of the stored search-quality figures, recomputed with this tree: true when none moved. */
async function checkQuality(): Promise<boolean> {
  const path = fileURLToPath(new URL("../results/search-quality.json", import.meta.url));
  const stored = (JSON.parse(readFileSync(path, "utf8")) as { results: SearchQualityResult[] }).results;
  const now = await measureSearchQuality([...retrievalDatasets(), ...blindHeldOutDatasets()], undefined, CONFIGURATIONS);
  let moved = 0;
  for (const result of now) {
    const before = stored.find((row) => row.dataset === result.dataset && row.method === result.method);
    if (before === undefined || JSON.stringify(before.metrics) !== JSON.stringify(result.metrics)) {
      moved++;
      console.log(`  moved: ${result.dataset} / ${result.method}`);
    }
  }
  console.log(`search quality: ${now.length} keyword rows recomputed, ${moved} moved from bench/results/search-quality.json`);
  return moved === 0;
}

const size = Number(process.argv[2] ?? 100_000);
const rounds = Number(process.argv[3] ?? 3);
const variant = process.argv[4];
if (variant === "quality") process.exitCode = (await checkQuality()) ? 0 : 1;
else if (variant === undefined) {
  await parent(size, rounds);
  await checkQuality();
} else await child(variant, size);
