import { performance } from "node:perf_hooks";
import { createRegistry, SearchIndex } from "../../src/index.js";
import { searchDocumentOf } from "../../src/registry/search-document.js";
import { percentile, round } from "../stats.js";
import type { MetaToolData } from "./metatool-data.js";
import { syntheticCatalog } from "./synthetic-catalog.js";

/** Speed and size of the search at one catalog size. */
export interface SearchSpeedResult {
  readonly tools: number;
  /** Median time to build the postings of an index of this size, in ms. */
  readonly indexBuildMs: number;
  /** Time to register the tools in a registry (schema compile + tokenize), in ms. */
  readonly registerMs: number;
  readonly queryP50Ms: number;
  readonly queryP99Ms: number;
  /** Heap growth per indexed tool, in bytes (needs --expose-gc to be meaningful). */
  readonly heapBytesPerTool: number | undefined;
  readonly queries: number;
}

function collectGarbage(): boolean {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) return false;
  gc();
  gc();
  return true;
}

/** Measures index build and query latency with the MetaTool queries against synthetic catalogs. */
export function measureSearchSpeed(data: MetaToolData, sizes: readonly number[]): SearchSpeedResult[] {
  const queries = [...data.single, ...data.multi].map((query) => query.query);
  return sizes.map((size) => {
    const tools = syntheticCatalog(data, size);
    const registerStart = performance.now();
    const registry = createRegistry({ tools });
    const registerMs = performance.now() - registerStart;
    const documents = registry.list().map(searchDocumentOf);

    const builds: number[] = [];
    let index = new SearchIndex();
    for (let attempt = 0; attempt < 5; attempt++) {
      index = new SearchIndex();
      for (const document of documents) index.set(document);
      const start = performance.now();
      index.build();
      builds.push(performance.now() - start);
    }

    const hasGc = collectGarbage();
    // Several live copies for small sizes, so that the heap growth stands out of the GC noise.
    const copies = Math.max(1, Math.ceil(20_000 / size));
    const heapBefore = process.memoryUsage().heapUsed;
    const kept: SearchIndex[] = [];
    for (let copy = 0; copy < copies; copy++) {
      const index = new SearchIndex();
      for (const document of documents) index.set(document);
      index.build();
      kept.push(index);
    }
    collectGarbage();
    const heapBytesPerTool = hasGc ? (process.memoryUsage().heapUsed - heapBefore) / (size * copies) : undefined;
    const measured = kept[0] as SearchIndex;

    for (const query of queries.slice(0, 200)) measured.search(query, 10);
    // Start the timed queries without the garbage of the index builds above.
    collectGarbage();
    const latencies: number[] = [];
    for (let round = 0; round < 3; round++) {
      for (const query of queries) {
        const start = performance.now();
        measured.search(query, 10);
        latencies.push(performance.now() - start);
      }
    }
    return {
      tools: size,
      indexBuildMs: round(percentile(builds, 50), 2),
      registerMs: round(registerMs, 1),
      queryP50Ms: round(percentile(latencies, 50), 4),
      queryP99Ms: round(percentile(latencies, 99), 4),
      heapBytesPerTool: heapBytesPerTool === undefined ? undefined : Math.round(heapBytesPerTool),
      queries: latencies.length,
    };
  });
}
