/**
 * What registering costs per tool as the registry grows (issue 18: 100,000 tools took 71 s in
 * `createRegistry`, superlinear). At each size, on the same synthetic MCP-like catalog:
 * `createRegistry({ tools })`, a `register()` loop into an empty registry, and, measured in the
 * same process right before, a plain `Map.set` loop over the same tools: the floor any registry
 * pays. The first search after the load is timed apart (it computes every term weight once).
 * Time is the best of `rounds` (machine shared with other jobs); the index work per tool is the
 * registry's deterministic operation counters.
 *   node --expose-gc --import tsx bench/core/registry-scale.ts [--quick]
 */
import { writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { dirname, join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { type AnyToolDefinition, createRegistry, type Registry } from "../../src/index.js";
import { loadMetatool, type MetaToolData } from "../search/metatool-data.js";
import { syntheticCatalog } from "../search/synthetic-catalog.js";
import { collectGarbage, round } from "../stats.js";

/** Registration cost at one registry size. */
export interface RegistryScaleRow {
  readonly tools: number;
  /** `createRegistry({ tools })`, best of the rounds. */
  readonly createMicrosPerTool: number;
  /** CPU time of that round (all threads, garbage collection included). */
  readonly createCpuMicrosPerTool: number;
  /** `register()` of each tool into an empty registry, best of the rounds. */
  readonly registerLoopMicrosPerTool: number;
  /** `map.set(tool.name, tool)` for each tool: the floor. */
  readonly mapInsertMicrosPerTool: number;
  /** createRegistry per tool divided by the Map insert per tool. */
  readonly createToMapRatio: number;
  /** The first search after `createRegistry` (computes every term weight once), in ms. */
  readonly firstSearchMs: number;
  /** Index work per tool (search index and name trigrams; deterministic). */
  readonly operationsPerTool: number;
  /** Heap held by the registry per tool, in bytes (with --expose-gc). */
  readonly heapBytesPerTool: number | undefined;
}

/** 50 live runs on one registry: what each costs, and what a registration costs each of them. */
export interface RunsAtScaleRow {
  readonly tools: number;
  readonly runs: number;
  /** Heap per run after each activated 5 tools, built its definitions and called find_tool, in bytes. */
  readonly heapBytesPerRun: number | undefined;
  /** Median over the runs of `definitions()` right after a `registry.register()`, in µs. */
  readonly definitionsAfterRegisterMicros: number;
  /** Median over the runs of a find_tool search (`run.search`) right after a `registry.register()`, in µs. */
  readonly searchAfterRegisterMicros: number;
  /** The same search with no change before it, in µs. */
  readonly searchSteadyMicros: number;
}

/** The whole measurement, with what it ran on. */
export interface RegistryScaleResult {
  readonly rows: readonly RegistryScaleRow[];
  readonly runs: readonly RunsAtScaleRow[];
  /** Largest per-tool createRegistry cost over the smallest size's. 1 is linear. */
  readonly growth: number;
  readonly loadAverage: readonly number[];
}

/** Wall and CPU time (all threads: garbage collection included) of the fastest round, in ms. */
function best(rounds: number, task: () => void): { wall: number; cpu: number } {
  let fastest = { wall: Number.POSITIVE_INFINITY, cpu: Number.POSITIVE_INFINITY };
  for (let round = 0; round < rounds; round++) {
    collectGarbage();
    const cpu = process.cpuUsage();
    const started = performance.now();
    task();
    const wall = performance.now() - started;
    const used = process.cpuUsage(cpu);
    if (wall < fastest.wall) fastest = { wall, cpu: (used.user + used.system) / 1000 };
  }
  return fastest;
}

function operationsOf(registry: Registry): number {
  // biome-ignore lint/complexity/useLiteralKeys: the counters are private members, read for the bench
  return registry["index"].keyword.operations + registry["names"].operations;
}

function measureSize(tools: readonly AnyToolDefinition[], rounds: number): RegistryScaleRow {
  const size = tools.length;
  createRegistry({ tools: tools.slice(0, 200), indexInBackground: false }); // every code path compiled before timing
  const mapMs = best(rounds, () => {
    const map = new Map<string, AnyToolDefinition>();
    for (const tool of tools) map.set(tool.name, tool);
  });
  // No background indexing: left running, it would take the CPU from the measurements after it.
  const createMs = best(rounds, () => createRegistry({ tools, indexInBackground: false }));
  const loopMs = best(rounds, () => {
    const registry = createRegistry({ indexInBackground: false });
    for (const tool of tools) registry.register(tool);
  });
  const hasGc = collectGarbage();
  const heapBefore = process.memoryUsage().heapUsed;
  const registry = createRegistry({ tools, indexInBackground: false });
  const started = performance.now();
  registry.search("send an email to the team");
  const firstSearchMs = performance.now() - started;
  collectGarbage();
  const heapBytesPerTool = hasGc ? Math.round((process.memoryUsage().heapUsed - heapBefore) / size) : undefined;
  const perTool = (ms: number) => round((ms * 1000) / size, 2);
  return {
    tools: size,
    createMicrosPerTool: perTool(createMs.wall),
    createCpuMicrosPerTool: perTool(createMs.cpu),
    registerLoopMicrosPerTool: perTool(loopMs.wall),
    mapInsertMicrosPerTool: perTool(mapMs.wall),
    createToMapRatio: round(createMs.wall / mapMs.wall, 0),
    firstSearchMs: round(firstSearchMs, 1),
    operationsPerTool: round(operationsOf(registry) / size, 1),
    heapBytesPerTool,
  };
}

function medianOf(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

const QUERIES = ["send an email to the team", "create a calendar event", "list open issues", "search the web for news"];

/**
 * `runs` live runs on a registry of `tools` tools (each activates 5 tools, builds its definitions,
 * calls find_tool), then tools registered one at a time (an MCP server's `list_changed`), each
 * followed by every run's next `definitions()` and find_tool search.
 */
async function measureRuns(tools: readonly AnyToolDefinition[], runs: number): Promise<RunsAtScaleRow> {
  const registry = createRegistry({ tools, indexInBackground: false });
  registry.search("warm up");
  const hasGc = collectGarbage();
  const heapBefore = process.memoryUsage().heapUsed;
  const live = Array.from({ length: runs }, (_, i) => {
    const run = registry.createRun();
    run.activate(tools.slice(i * 5, i * 5 + 5).map((tool) => tool.name));
    run.definitions();
    return run;
  });
  for (const [i, run] of live.entries()) await run.call("find_tool", { query: QUERIES[i % QUERIES.length] });
  collectGarbage();
  const heapBytesPerRun = hasGc ? Math.round((process.memoryUsage().heapUsed - heapBefore) / runs) : undefined;
  const definitions: number[] = [];
  const searches: number[] = [];
  const steady: number[] = [];
  for (let step = 0; step < 5; step++) {
    registry.register({
      ...(tools[step] as AnyToolDefinition),
      name: `late_${step}_${(tools[step] as AnyToolDefinition).name}`.slice(0, 64),
    });
    for (const [i, run] of live.entries()) {
      let started = performance.now();
      run.definitions();
      definitions.push((performance.now() - started) * 1000);
      const query = QUERIES[(i + step) % QUERIES.length] as string;
      started = performance.now();
      run.search(query, { limit: 5 });
      searches.push((performance.now() - started) * 1000);
      started = performance.now();
      run.search(query, { limit: 5 });
      steady.push((performance.now() - started) * 1000);
    }
  }
  return {
    tools: tools.length,
    runs,
    heapBytesPerRun,
    definitionsAfterRegisterMicros: round(medianOf(definitions), 1),
    searchAfterRegisterMicros: round(medianOf(searches), 1),
    searchSteadyMicros: round(medianOf(steady), 1),
  };
}

/** Measures every size, smallest first, each on its own catalog (built before any timing). */
export async function measureRegistryScale(
  data: MetaToolData,
  sizes: readonly number[],
  rounds = 3,
): Promise<RegistryScaleResult> {
  const rows: RegistryScaleRow[] = [];
  const runs: RunsAtScaleRow[] = [];
  for (const size of sizes) {
    const tools = syntheticCatalog(data, size);
    rows.push(measureSize(tools, size >= 50_000 ? Math.min(rounds, 2) : rounds));
    if (size === sizes[0] || size === sizes[sizes.length - 1]) runs.push(await measureRuns(tools, 50));
  }
  const first = rows[0] as RegistryScaleRow;
  const growth = round(Math.max(...rows.map((row) => row.createMicrosPerTool)) / first.createMicrosPerTool, 2);
  return { rows, runs, growth, loadAverage: loadavg().map((value) => round(value, 1)) };
}

/** The README table. */
export function renderRegistryScale(result: RegistryScaleResult, machineCpus: number): string {
  const lines = [
    `**Registering tools** (synthetic MCP-like catalog; best of 2-3 rounds per size in one process; load average ${result.loadAverage.join(" / ")} on ${machineCpus} cores). Per tool: \`createRegistry({ tools })\`, a \`register()\` loop, and a plain \`Map.set\` loop over the same tools measured in the same run; the first search after the load computes every term weight once. Before issue 18: 71.4 s for 100,000 tools in the bench (714 µs per tool), 100-240 µs per tool elsewhere.`,
    "",
    "| tools | createRegistry (µs/tool) | its CPU time (µs/tool) | register loop (µs/tool) | Map.set (µs/tool) | createRegistry / Map.set | first search (ms) | index operations per tool | heap per tool (bytes) |",
    "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ...result.rows.map(
      (row) =>
        `| ${row.tools} | ${row.createMicrosPerTool} | ${row.createCpuMicrosPerTool} | ${row.registerLoopMicrosPerTool} | ${row.mapInsertMicrosPerTool} | ${row.createToMapRatio}x | ${row.firstSearchMs} | ${row.operationsPerTool} | ${row.heapBytesPerTool ?? "n/a"} |`,
    ),
    "",
    `**${result.runs[0]?.runs ?? 50} live runs on one registry** (each run activated 5 tools, built its definitions and called find_tool; then tools are registered one at a time, as an MCP server's \`list_changed\` does, and every run asks again; medians over runs and registrations):`,
    "",
    "| registry tools | heap per run (bytes) | definitions() after a register (µs) | find_tool search after a register (µs) | the same search, no change before (µs) |",
    "| --- | --- | --- | --- | --- |",
    ...result.runs.map(
      (row) =>
        `| ${row.tools} | ${row.heapBytesPerRun ?? "n/a"} | ${row.definitionsAfterRegisterMicros} | ${row.searchAfterRegisterMicros} | ${row.searchSteadyMicros} |`,
    ),
  ];
  return lines.join("\n");
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const quick = process.argv.includes("--quick");
  const result = await measureRegistryScale(loadMetatool(), quick ? [1_000, 10_000] : [1_000, 10_000, 20_000, 50_000, 100_000]);
  const markdown = renderRegistryScale(result, cpus().length);
  const file = join(dirname(fileURLToPath(import.meta.url)), "..", "results", "registry-scale.json");
  writeFileSync(
    file,
    `${JSON.stringify({ machine: { node: process.version, cpus: cpus().length }, ...result, markdown: [markdown] }, null, 2)}\n`,
  );
  console.log(markdown);
}
