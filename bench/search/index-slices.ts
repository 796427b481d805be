/**
 * The event-loop turns of background indexing at one catalog size: how long each turn that applied
 * queued changes, wrote staged postings (commit) or computed weights took (run with --trace-gc to
 * see which long turns are collector pauses).
 *   node --import tsx bench/search/index-slices.ts [size]
 */
import { performance } from "node:perf_hooks";
import { createRegistry } from "../../src/index.js";
import { loadMetatool } from "./metatool-data.js";
import { syntheticCatalog } from "./synthetic-catalog.js";

const size = Number(process.argv[2] ?? 100_000);
const tools = syntheticCatalog(loadMetatool(), size);
// biome-ignore lint/suspicious/noExplicitAny: reads private state of the registry
const r = createRegistry({ tools }) as any;
const turns: [number, string][] = [];
while (r.queuedIndexChanges > 0 || r.indexing !== undefined) {
  const phase = r.queuedIndexChanges > 0 ? "apply" : r.staged ? "commit" : "weights";
  const t = performance.now();
  await new Promise<void>((resolve) => setImmediate(resolve));
  turns.push([performance.now() - t, phase]);
}
const by = (p: string) => turns.filter((x) => x[1] === p).map((x) => x[0]);
const apply = by("apply").sort((a, b) => a - b);
console.log(
  `apply turns ${apply.length}, median ${apply[apply.length >> 1]?.toFixed(1)} p99 ${apply[Math.floor(apply.length * 0.99)]?.toFixed(1)} max ${apply.at(-1)?.toFixed(0)} ms, total ${apply.reduce((a, b) => a + b, 0).toFixed(0)}; commit ${by("commit").map((x) => x.toFixed(0))} ms; weights ${by("weights").map((x) => x.toFixed(0))} ms`,
);
