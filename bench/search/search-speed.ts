import { performance } from "node:perf_hooks";
import { createRegistry, defineTool, SearchIndex } from "../../src/index.js";
import { searchDocumentOf } from "../../src/registry/search-document.js";
import { collectGarbage, percentile, round } from "../stats.js";
import type { RetrievalDataset } from "./datasets.js";
import type { MetaToolData } from "./metatool-data.js";
import { syntheticCatalog } from "./synthetic-catalog.js";

/** Speed and size of the search at one catalog size. */
export interface SearchSpeedResult {
  readonly tools: number;
  /** Time to register the tools in a registry (schema compile + index), in ms. */
  readonly registerMs: number;
  /** Time to index every tool into an empty index, in ms. */
  readonly indexBuildMs: number;
  /** Median time to add one new tool to the full index, in µs. */
  readonly addMicros: number;
  /** Median time to replace one tool's document, in µs. */
  readonly updateMicros: number;
  /** Median time to remove one tool, in µs. */
  readonly removeMicros: number;
  /** 50 steps of (register one tool, search) on the full registry, in ms. */
  readonly interleaved50Ms: number;
  readonly queryP50Ms: number;
  readonly queryP99Ms: number;
  /**
   * p99 over queries of each query's best of three runs: what the search costs without the time
   * the process spent descheduled on a shared machine.
   */
  readonly queryP99BestOf3Ms: number;
  /** Heap growth per indexed tool, in bytes (needs --expose-gc to be meaningful). */
  readonly heapBytesPerTool: number | undefined;
  readonly queries: number;
  /** Shortest and longest query, in words. */
  readonly queryWords: readonly [number, number];
}

/**
 * Realistic queries of 1 to 40 words: every query of the data sets, cut at 40 words, and the
 * first one to three words of each (the short keyword queries models also send).
 */
export function speedQueries(datasets: readonly RetrievalDataset[]): string[] {
  const full = datasets.flatMap((dataset) => dataset.queries.map((query) => query.query.split(/\s+/).slice(0, 40).join(" ")));
  return [
    ...full,
    ...full.map((query, index) =>
      query
        .split(/\s+/)
        .slice(0, 1 + (index % 3))
        .join(" "),
    ),
  ];
}

function medianMicros(samples: number[]): number {
  return round(percentile(samples, 50) * 1000, 1);
}

/** Measures registration, index build, in-place updates and query latency on synthetic catalogs. */
export function measureSearchSpeed(
  data: MetaToolData,
  datasets: readonly RetrievalDataset[],
  sizes: readonly number[],
): SearchSpeedResult[] {
  const queries = speedQueries(datasets);
  const words = queries.map((query) => query.split(/\s+/).length);
  return sizes.map((size) => {
    const tools = syntheticCatalog(data, size);
    const registerStart = performance.now();
    const registry = createRegistry({ tools, indexInBackground: false });
    const registerMs = performance.now() - registerStart;
    const documents = registry.list().map((descriptor) => searchDocumentOf(descriptor));
    const extra = createRegistry({ tools: syntheticCatalog(data, 200, 99), indexInBackground: false })
      .list({ tier: "deferred" })
      .map((descriptor, index) => ({ ...searchDocumentOf(descriptor), id: `extra_${index}` }));

    collectGarbage();
    const hasGc = collectGarbage();
    const heapBefore = process.memoryUsage().heapUsed;
    const buildStart = performance.now();
    const index = new SearchIndex();
    for (const document of documents) index.set(document);
    const indexBuildMs = performance.now() - buildStart;
    collectGarbage();
    const heapBytesPerTool = hasGc ? (process.memoryUsage().heapUsed - heapBefore) / size : undefined;
    index.search("warm up", 10);

    const adds: number[] = [];
    const updates: number[] = [];
    const removes: number[] = [];
    for (const [n, document] of extra.entries()) {
      let start = performance.now();
      index.set(document);
      adds.push(performance.now() - start);
      const target = documents[(n * 7919) % documents.length] as (typeof documents)[number];
      start = performance.now();
      index.set({ ...target, description: `${target.description} updated` });
      updates.push(performance.now() - start);
      start = performance.now();
      index.delete(document.id as string);
      removes.push(performance.now() - start);
    }

    for (const query of queries.slice(0, 200)) index.search(query, 10);
    collectGarbage();
    const latencies: number[] = [];
    const best = new Array<number>(queries.length).fill(Number.POSITIVE_INFINITY);
    for (let round = 0; round < 3; round++) {
      for (const [at, query] of queries.entries()) {
        const start = performance.now();
        index.search(query, 10);
        const elapsed = performance.now() - start;
        latencies.push(elapsed);
        best[at] = Math.min(best[at] as number, elapsed);
      }
    }

    registry.search("warm up");
    const interleavedStart = performance.now();
    for (let step = 0; step < 50; step++) {
      registry.register(
        defineTool({
          name: `late_tool_${step}`,
          description: `A tool that arrives mid-run (${step}) from a list_changed notification.`,
          tier: "deferred",
          inputSchema: { type: "object" },
          handler: () => "",
        }),
      );
      registry.search(queries[step % queries.length] as string, { limit: 5 });
    }
    const interleaved50Ms = performance.now() - interleavedStart;

    return {
      tools: size,
      registerMs: round(registerMs, 1),
      indexBuildMs: round(indexBuildMs, 1),
      addMicros: medianMicros(adds),
      updateMicros: medianMicros(updates),
      removeMicros: medianMicros(removes),
      interleaved50Ms: round(interleaved50Ms, 2),
      queryP50Ms: round(percentile(latencies, 50), 4),
      queryP99Ms: round(percentile(latencies, 99), 4),
      queryP99BestOf3Ms: round(percentile(best, 99), 4),
      heapBytesPerTool: heapBytesPerTool === undefined ? undefined : Math.round(heapBytesPerTool),
      queries: latencies.length,
      queryWords: [Math.min(...words), Math.max(...words)],
    };
  });
}
