/**
 * What the search index costs per tool, against the registry's plain register of the same tools in
 * the same process: a fresh process per catalog size builds the synthetic catalog once, then per
 * run (the previous run's registry collected first) registers it (`createRegistry` with
 * `indexInBackground: false`: nothing is indexed then, the reference) and indexes it
 * (`prepareSearch()` and a first search). CPU time of the process (user + system, the collector's
 * threads included), the full collections during the indexing and their pause, and the heap after.
 * Checked: a search for each of 5 tools' descriptions finds that tool first. Medians of the runs.
 *   node --expose-gc --import tsx bench/search/index-cost.ts [size] [runs]
 */
import { execFileSync } from "node:child_process";
import { loadavg } from "node:os";
import { constants, type PerformanceEntry, PerformanceObserver } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import type { AnyToolDefinition } from "../../src/index.js";
import { collectGarbage, median, round } from "../stats.js";
import { loadMetatool } from "./metatool-data.js";
import { syntheticCatalog } from "./synthetic-catalog.js";

/** One process's figures. */
interface IndexRun {
  readonly registerCpuMs: number;
  readonly indexCpuMs: number;
  readonly indexWallMs: number;
  readonly fullCollections: number;
  /** Pause of the full collections while indexing, ms (the observer's durations). */
  readonly fullCollectionMs: number;
  readonly heapMb: number;
  /** How many of the 5 sampled descriptions found their tool first. */
  readonly foundFirst: number;
  readonly load: number;
}

/** One catalog size: medians of the runs. */
export interface IndexCostRow {
  readonly tools: number;
  readonly runs: number;
  /** `createRegistry` of the catalog, nothing indexed: µs of CPU per tool. */
  readonly registerCpuMicrosPerTool: number;
  /** `prepareSearch()` and the first search: µs of CPU per tool. */
  readonly indexCpuMicrosPerTool: number;
  readonly indexWallMs: number;
  /** indexCpu / registerCpu, paired per run, median. */
  readonly indexToRegisterRatio: number;
  readonly fullCollections: readonly number[];
  readonly fullCollectionMs: number;
  readonly heapMb: number;
  readonly loads: readonly number[];
}

const SAMPLES = 5;

/** One registry of `tools`: registered, then indexed; the figures of that registry. */
async function once(library: typeof import("../../src/index.js"), tools: readonly AnyToolDefinition[]): Promise<IndexRun> {
  const size = tools.length;
  let fullCollections = 0;
  let fullCollectionMs = 0;
  let counting = false;
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = (entry as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind;
      if (counting && kind === constants.NODE_PERFORMANCE_GC_MAJOR) {
        fullCollections++;
        fullCollectionMs += entry.duration;
      }
    }
  });
  observer.observe({ entryTypes: ["gc"] });
  // The previous registry's heap and typed arrays collected: each one starts from the catalog alone.
  collectGarbage();
  await new Promise((resolve) => setTimeout(resolve, 50));
  const cpu = () => {
    const usage = process.cpuUsage();
    return (usage.user + usage.system) / 1000;
  };
  let cpuStarted = cpu();
  const registry = library.createRegistry({ tools: [...tools], indexInBackground: false });
  const registerCpuMs = cpu() - cpuStarted;
  // Entries of collections during the register are delivered asynchronously: not counted.
  await new Promise((resolve) => setTimeout(resolve, 50));
  counting = true;
  const wallStarted = performance.now();
  cpuStarted = cpu();
  registry.prepareSearch();
  registry.search("send a message to the team");
  const indexCpuMs = cpu() - cpuStarted;
  const indexWallMs = performance.now() - wallStarted;
  await new Promise((resolve) => setTimeout(resolve, 50));
  counting = false;
  observer.disconnect();
  collectGarbage();
  const heapMb = process.memoryUsage().heapUsed / 1e6;
  let foundFirst = 0;
  for (let sample = 0; sample < SAMPLES; sample++) {
    const tool = tools[Math.floor(((sample + 0.5) * size) / SAMPLES)];
    if (tool === undefined) continue;
    const hits = registry.search(tool.description, { limit: 3 });
    if (hits[0]?.name === tool.name) foundFirst++;
  }
  return {
    registerCpuMs,
    indexCpuMs,
    indexWallMs,
    fullCollections,
    fullCollectionMs,
    heapMb,
    foundFirst,
    load: loadavg()[0] as number,
  };
}

async function child(size: number, runs: number): Promise<void> {
  const library = await import("../../src/index.js");
  const tools = syntheticCatalog(loadMetatool(), size, 7, library.defineTool);
  const results: IndexRun[] = [];
  for (let run = 0; run < runs; run++) results.push(await once(library, tools));
  console.log(JSON.stringify(results));
}

/**
 * `runs` registries of one catalog of `size` tools, in a fresh process (the catalog built once: its
 * setup costs more than a registry). Throws when a run's index does not find a sampled tool's
 * description first (an index that answers wrongly is not timed).
 */
export function measureIndexCost(size: number, runs: number): IndexCostRow {
  const script = fileURLToPath(import.meta.url);
  const out = execFileSync(process.execPath, [...process.execArgv, script, String(size), String(runs), "child"], {
    encoding: "utf8",
    maxBuffer: 16 * 1024 * 1024,
  });
  const rows = JSON.parse(out.trim().split("\n").at(-1) as string) as IndexRun[];
  for (const run of rows)
    if (run.foundFirst !== SAMPLES)
      throw new Error(`index-cost: ${run.foundFirst} of ${SAMPLES} descriptions found their tool first at ${size} tools`);
  const perTool = (ms: number) => round((ms * 1000) / size, 1);
  return {
    tools: size,
    runs,
    registerCpuMicrosPerTool: perTool(median(rows.map((run) => run.registerCpuMs))),
    indexCpuMicrosPerTool: perTool(median(rows.map((run) => run.indexCpuMs))),
    indexWallMs: round(median(rows.map((run) => run.indexWallMs)), 0),
    indexToRegisterRatio: round(median(rows.map((run) => run.indexCpuMs / run.registerCpuMs)), 2),
    fullCollections: rows.map((run) => run.fullCollections),
    fullCollectionMs: round(median(rows.map((run) => run.fullCollectionMs)), 0),
    heapMb: round(median(rows.map((run) => run.heapMb)), 0),
    loads: rows.map((run) => round(run.load, 1)),
  };
}

/** The section as Markdown. */
export function renderIndexCost(rows: readonly IndexCostRow[], title = "### Search index cost per tool"): string {
  return [
    title,
    "",
    "A fresh process per size builds the catalog once; each run (the previous run's registry collected first): the catalog registered (`createRegistry`, `indexInBackground: false`: nothing indexed, the reference), " +
      "then indexed (`prepareSearch()` and a first search). CPU of the process (user + system, the collector's threads included), medians of the runs; " +
      "the ratio paired per run. Checked: a search for each of 5 tools' descriptions finds that tool first. Full collections while indexing: their count in each run and their pause (summed per run, median).",
    "",
    "| tools | runs | register µs CPU/tool | index µs CPU/tool | index / register | index wall ms | full collections | their pause ms | heap after MB | 1-min load |",
    "| ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: | --- |",
    ...rows.map(
      (row) =>
        `| ${row.tools} | ${row.runs} | ${row.registerCpuMicrosPerTool} | ${row.indexCpuMicrosPerTool} | ${row.indexToRegisterRatio}x | ${row.indexWallMs} | ${row.fullCollections.join(", ")} | ${row.fullCollectionMs} | ${row.heapMb} | ${row.loads.join(", ")} |`,
    ),
  ].join("\n");
}

const direct = process.argv[1] === fileURLToPath(import.meta.url);
if (direct) {
  const size = Number(process.argv[2] ?? 20_000);
  if (process.argv[4] === "child") await child(size, Number(process.argv[3] ?? 3));
  else {
    const row = measureIndexCost(size, Number(process.argv[3] ?? 3));
    console.log(renderIndexCost([row]));
  }
}
