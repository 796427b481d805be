/**
 * A/B of building the search index in the registry, interleaved in one process: an earlier tree's
 * `src` (copied to `.ab-old/src`, e.g. `git archive <commit> src | tar -x -C .ab-old`) against this
 * one, alternating which goes first each round, a garbage collection before each. Per variant:
 * `createRegistry`, then everything indexed synchronously (the first search; with this tree,
 * `prepareSearch()` then the search), µs per tool; and for this tree, background indexing: the
 * longest turn of the event loop while slices run, and the first search after them.
 *   node --expose-gc --import tsx bench/search/index-build-ab.ts [size] [rounds]
 */
import { loadavg } from "node:os";
import { performance } from "node:perf_hooks";
import * as current from "../../src/index.js";
import { collectGarbage, median, round } from "../stats.js";
import { loadMetatool } from "./metatool-data.js";
import { syntheticCatalog } from "./synthetic-catalog.js";

const oldPath = "../../.ab-old/src/index.js";
const old = (await import(oldPath)) as typeof current;
const size = Number(process.argv[2] ?? 100_000);
const rounds = Number(process.argv[3] ?? 3);
const tools = syntheticCatalog(loadMetatool(), size);
const perTool = (ms: number) => round((ms * 1000) / size, 1);

interface Sync {
  create: number;
  index: number;
}
function sync(library: typeof current, prepare: boolean): Sync {
  collectGarbage();
  let started = performance.now();
  const registry = library.createRegistry({ tools, ...(prepare ? { indexInBackground: false } : {}) });
  const create = performance.now() - started;
  started = performance.now();
  if (prepare) registry.prepareSearch();
  registry.search("send a message to the team");
  return { create, index: performance.now() - started };
}

async function background(): Promise<{ longestTurn: number; drained: number; firstSearch: number }> {
  collectGarbage();
  const registry = current.createRegistry({ tools });
  const queued = () => Reflect.get(registry, "queuedIndexChanges") as number;
  const started = performance.now();
  let longestTurn = 0;
  while (queued() > 0 || Reflect.get(registry, "indexing") !== undefined) {
    const turn = performance.now();
    await new Promise<void>((resolve) => setImmediate(resolve));
    longestTurn = Math.max(longestTurn, performance.now() - turn);
  }
  const drained = performance.now() - started;
  const search = performance.now();
  registry.search("send a message to the team");
  return { longestTurn, drained, firstSearch: performance.now() - search };
}

const a: Sync[] = [];
const b: Sync[] = [];
const bg: Awaited<ReturnType<typeof background>>[] = [];
for (let r = 0; r < rounds; r++) {
  for (const which of r % 2 === 0 ? [0, 1] : [1, 0]) (which === 0 ? a : b).push(sync(which === 0 ? old : current, which === 1));
  bg.push(await background());
}
const show = (rows: Sync[]) =>
  `create ${perTool(median(rows.map((x) => x.create)))} µs/tool, index (sync) ${perTool(median(rows.map((x) => x.index)))} µs/tool = ${round(median(rows.map((x) => x.index)), 0)} ms [${rows.map((x) => round(x.index, 0)).join(", ")}]`;
console.log(
  `${size} tools, ${rounds} rounds, medians, load ${loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")}`,
);
console.log(`  old: ${show(a)}`);
console.log(`  new: ${show(b)}`);
console.log(
  `  new, background: longest event-loop turn ${round(median(bg.map((x) => x.longestTurn)), 0)} ms [${bg.map((x) => round(x.longestTurn, 0)).join(", ")}], queue drained in ${round(median(bg.map((x) => x.drained)), 0)} ms, first search then ${round(median(bg.map((x) => x.firstSearch)), 1)} ms`,
);
