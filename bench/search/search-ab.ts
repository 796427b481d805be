/**
 * A/B of two SearchIndex implementations on the same synthetic catalog and queries, interleaved in
 * one process: each round runs every query on the old index and the new one (alternating which
 * goes first); rankings are compared, and raw and best-of-5 latencies and the CPU time of each
 * side (process.cpuUsage around each search) reported with the load. The queries: those of the
 * speed bench plus the robustness set's (typos, identifiers, abbreviations: the words no tool
 * contains that the typo correction scans the vocabulary for).
 * The old index is a file holding an earlier `search-index.ts` (set SLOW=1 to list the five
 * slowest queries of the new one), e.g.
 *   git show 062ad0b:src/search/search-index.ts > src/search/search-index-baseline.ts
 *   node --expose-gc --import tsx bench/search/search-ab.ts [sizes...]
 */
import { loadavg } from "node:os";
import { performance } from "node:perf_hooks";
import { createRegistry } from "../../src/index.js";
import { searchDocumentOf } from "../../src/registry/search-document.js";
import { SearchIndex } from "../../src/search/search-index.js";
import { collectGarbage, percentile, round } from "../stats.js";
import { mcpRobustnessDataset, retrievalDatasets } from "./datasets.js";
import { loadMetatool } from "./metatool-data.js";
import { speedQueries } from "./search-speed.js";
import { syntheticCatalog } from "./synthetic-catalog.js";

const baselinePath = "../../src/search/search-index-baseline.js";
const Baseline = ((await import(baselinePath)) as { SearchIndex: typeof SearchIndex }).SearchIndex;
const sizes = process.argv
  .slice(2)
  .map(Number)
  .filter((n) => n > 0);
const data = loadMetatool();
const queries = [...speedQueries(retrievalDatasets()), ...mcpRobustnessDataset().queries.map((query) => query.query)];
for (const size of sizes.length > 0 ? sizes : [20_000, 100_000]) {
  const documents = createRegistry({ tools: syntheticCatalog(data, size) })
    .list()
    .map((descriptor) => searchDocumentOf(descriptor));
  const a = new Baseline();
  const b = new SearchIndex();
  for (const d of documents) a.set(d);
  collectGarbage();
  const heapBefore = process.memoryUsage().heapUsed;
  for (const d of documents) b.set(d);
  collectGarbage();
  const heapPerTool = (process.memoryUsage().heapUsed - heapBefore) / size;
  a.search("warm up");
  b.search("warm up");
  let mismatches = 0;
  for (const q of queries) {
    const x = JSON.stringify(a.search(q, 10));
    const y = JSON.stringify(b.search(q, 10));
    if (x !== y) mismatches++;
  }
  collectGarbage();
  const ta: number[] = [];
  const tb: number[] = [];
  const slow: [number, string][] = [];
  const bestA = new Array<number>(queries.length).fill(Number.POSITIVE_INFINITY);
  const bestB = new Array<number>(queries.length).fill(Number.POSITIVE_INFINITY);
  const cpu = [0, 0];
  for (let r = 0; r < 5; r++) {
    for (const [i, q] of queries.entries()) {
      const first = (r + i) % 2 === 0;
      for (const which of first ? [0, 1] : [1, 0]) {
        const index = which === 0 ? a : b;
        const c = process.cpuUsage();
        const s = performance.now();
        index.search(q, 10);
        const e = performance.now() - s;
        const used = process.cpuUsage(c);
        cpu[which] = (cpu[which] as number) + (used.user + used.system) / 1000;
        (which === 0 ? ta : tb).push(e);
        const best = which === 0 ? bestA : bestB;
        best[i] = Math.min(best[i] as number, e);
        if (which === 1 && r === 4) slow.push([e, q]);
      }
    }
  }
  const f = (t: number[]) =>
    `p50 ${round(percentile(t, 50), 4)} p90 ${round(percentile(t, 90), 4)} p99 ${round(percentile(t, 99), 4)} max ${round(Math.max(...t), 3)}`;
  const fields = b as unknown as Record<string, { byteLength: number } | number>;
  let typed = 0;
  for (const value of Object.values(fields)) if (ArrayBuffer.isView(value)) typed += value.byteLength;
  console.log(
    `${size} tools: JS heap ${round(heapPerTool, 0)} B/tool, typed arrays ${round(typed / size, 0)} B/tool, ${round(typed / b.postingCount, 1)} B/posting (${b.postingCount} postings)`,
  );
  console.log(
    `${size} tools, ${queries.length} queries x5, mismatches ${mismatches}, load ${loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}`,
  );
  const sum = (t: number[]) =>
    round(
      t.reduce((x, y) => x + y, 0),
      1,
    );
  console.log(`  old: ${f(ta)} | best of 5: ${f(bestA)} total ${sum(bestA)} ms | CPU ${round(cpu[0] as number, 1)} ms`);
  console.log(`  new: ${f(tb)} | best of 5: ${f(bestB)} total ${sum(bestB)} ms | CPU ${round(cpu[1] as number, 1)} ms`);
  if (process.env.SLOW)
    for (const [e, q] of slow.sort((x, y) => y[0] - x[0]).slice(0, 5))
      console.log(`  ${e.toFixed(2)} ${q.split(" ").length}w ${q.slice(0, 80)}`);
}
