/**
 * find_tool's ranker against plain BM25 on the same text, split by where the data came from: the
 * "tune" split holds the sets its constants were chosen on (MCP reference servers, MetaTool), the
 * "held-out" split the sets nothing was chosen on at the time they were first measured (other MCP
 * servers; the robustness set, written by another procedure). Every figure carries a 95% bootstrap
 * interval, and the difference ranker − BM25 a paired one, so a gap within the noise of a
 * 15-query slice is not read as a win or a loss.
 */

import { SearchIndex, type SearchIndexOptions } from "../../src/index.js";
import { round, seededRandom } from "../stats.js";
import { Bm25Baseline } from "./bm25-baseline.js";
import {
  mcpBlindHeldOut2Dataset,
  mcpBlindHeldOut3Dataset,
  mcpBlindHeldOut4Dataset,
  mcpHeldOutDataset,
  mcpRobustnessDataset,
  mcpServersDataset,
  metatoolDatasets,
  type RetrievalDataset,
} from "./datasets.js";
import type { LabelledQuery } from "./metatool-data.js";
import { recallAt } from "./metrics.js";
import { plainText, prepare } from "./search-quality.js";

/** How deep both rankers list: the reciprocal rank of a gold tool below this counts 0. */
export const RANK_DEPTH = 100;
const RESAMPLES = 2000;

/** One query's scores: recall@1 and @5 (any gold tool, for sets whose gold are alternatives) and 1/rank of the first gold tool. */
export interface QueryScores {
  readonly recallAt1: number;
  readonly recallAt5: number;
  readonly reciprocalRank: number;
}

/** A mean with its 95% bootstrap interval. */
export interface Interval {
  readonly mean: number;
  readonly low: number;
  readonly high: number;
}

/** The three metrics of one method, or of the difference ranker − BM25. */
export interface MetricIntervals {
  readonly recallAt1: Interval;
  readonly recallAt5: Interval;
  readonly mrr: Interval;
}

/** One data set (or one slice of it) compared. */
export interface HeldOutComparison {
  readonly split: "tune" | "held-out";
  readonly dataset: string;
  /** `all`, or the robustness set's query kind. */
  readonly slice: string;
  readonly queries: number;
  readonly bm25: MetricIntervals;
  readonly ranker: MetricIntervals;
  /** Paired: the same resampled queries for both methods. */
  readonly difference: MetricIntervals;
}

/** The scores of one ranked list (data set ids, best first). */
export function scoreQuery(ranked: readonly string[], query: LabelledQuery): QueryScores {
  const gold = new Set(query.gold);
  const first = ranked.findIndex((id) => gold.has(id));
  const any = (k: number) => (first >= 0 && first < k ? 1 : 0);
  return {
    recallAt1: query.goldMode === "any" ? any(1) : recallAt(ranked, query.gold, 1),
    recallAt5: query.goldMode === "any" ? any(5) : recallAt(ranked, query.gold, 5),
    reciprocalRank: first < 0 ? 0 : 1 / (first + 1),
  };
}

/** Per query, the scores of plain BM25 and of the ranker (default options unless given). */
export function rankBoth(
  dataset: RetrievalDataset,
  options: SearchIndexOptions = {},
): { readonly bm25: QueryScores[]; readonly ranker: QueryScores[] } {
  const prepared = prepare(dataset);
  const toIds = (names: readonly string[]) => names.map((name) => prepared.idOf.get(name) ?? name);
  const plain = new Bm25Baseline(prepared.documents.map((document) => ({ name: document.name, text: plainText(document) })));
  const index = new SearchIndex(options);
  for (const document of prepared.documents) index.set(document);
  return {
    bm25: dataset.queries.map((query) => scoreQuery(toIds(plain.search(query.query, RANK_DEPTH)), query)),
    ranker: dataset.queries.map((query) =>
      scoreQuery(toIds(index.search(query.query, RANK_DEPTH).map((hit) => hit.name)), query),
    ),
  };
}

/**
 * The mean of `values` with a 95% percentile bootstrap interval; with `baseline`, of the paired
 * difference `values − baseline` (each resample draws the same queries for both).
 */
export function bootstrap(values: readonly number[], baseline?: readonly number[], seed = 1): Interval {
  const n = values.length;
  const at = (i: number) => (values[i] as number) - (baseline === undefined ? 0 : (baseline[i] as number));
  let total = 0;
  for (let i = 0; i < n; i++) total += at(i);
  if (n === 0) return { mean: 0, low: 0, high: 0 };
  const random = seededRandom(seed);
  const means: number[] = [];
  for (let r = 0; r < RESAMPLES; r++) {
    let sum = 0;
    for (let i = 0; i < n; i++) sum += at(Math.floor(random() * n));
    means.push(sum / n);
  }
  means.sort((a, b) => a - b);
  return {
    mean: total / n,
    low: means[Math.floor(0.025 * RESAMPLES)] as number,
    high: means[Math.ceil(0.975 * RESAMPLES) - 1] as number,
  };
}

function intervals(scores: readonly QueryScores[], baseline?: readonly QueryScores[]): MetricIntervals {
  const pick = (list: readonly QueryScores[] | undefined, key: keyof QueryScores) => list?.map((s) => s[key]);
  return {
    recallAt1: bootstrap(pick(scores, "recallAt1") ?? [], pick(baseline, "recallAt1"), 11),
    recallAt5: bootstrap(pick(scores, "recallAt5") ?? [], pick(baseline, "recallAt5"), 12),
    mrr: bootstrap(pick(scores, "reciprocalRank") ?? [], pick(baseline, "reciprocalRank"), 13),
  };
}

/** Compares both methods on a data set, and on each of its query kinds when it has them. */
export function compare(
  split: HeldOutComparison["split"],
  dataset: RetrievalDataset,
  options: SearchIndexOptions = {},
): HeldOutComparison[] {
  const { bm25, ranker } = rankBoth(dataset, options);
  const kinds = [...new Set(dataset.queries.flatMap((query) => (query.kind === undefined ? [] : [query.kind])))];
  return [
    ["all", () => true] as const,
    ...kinds.map((kind) => [kind, (query: LabelledQuery) => query.kind === kind] as const),
  ].map(([slice, keep]) => {
    const picked = dataset.queries.flatMap((query, index) => (keep(query) ? [index] : []));
    const b = picked.map((index) => bm25[index] as QueryScores);
    const r = picked.map((index) => ranker[index] as QueryScores);
    return {
      split,
      dataset: dataset.name,
      slice,
      queries: picked.length,
      bm25: intervals(b),
      ranker: intervals(r),
      difference: intervals(r, b),
    };
  });
}

/** The held-out sets: other servers' tools, and queries written blind or by another procedure. */
export function heldOutDatasets(): RetrievalDataset[] {
  return [
    mcpHeldOutDataset(),
    mcpBlindHeldOut2Dataset(),
    mcpRobustnessDataset(),
    mcpBlindHeldOut3Dataset(),
    mcpBlindHeldOut4Dataset(),
  ];
}

/** The sets the ranker's constants were chosen on. */
export function tuneDatasets(): RetrievalDataset[] {
  return [mcpServersDataset(), ...metatoolDatasets()];
}

/** Every comparison, the tune split first. */
export function compareSplits(options: SearchIndexOptions = {}): HeldOutComparison[] {
  return [
    ...tuneDatasets().flatMap((dataset) => compare("tune", dataset, options)),
    ...heldOutDatasets().flatMap((dataset) => compare("held-out", dataset, options)),
  ];
}

/** `0.563 [0.49, 0.63]` */
export function formatInterval(interval: Interval, signed = false): string {
  const f = (value: number) => `${signed && value >= 0 ? "+" : ""}${round(value).toFixed(3)}`;
  return `${f(interval.mean)} [${f(interval.low)}, ${f(interval.high)}]`;
}

/** The comparisons as the markdown table of the bench summary. */
export function renderHeldOut(rows: readonly HeldOutComparison[]): string {
  const lines = [
    "**find_tool on held-out data** (`bench/search/held-out.ts`): the default ranker against plain BM25 on the same text, on the sets its constants were chosen on (tune) and on those nothing was chosen on when first measured (held-out; the robustness set by query kind). Means with 95% bootstrap intervals (2,000 resamples, fixed seed); the MRR difference is paired. An interval wholly below 0 fails `bench/search/held-out.test.ts`.",
    "",
    "| split | data set | slice | queries | BM25 recall@1 | default recall@1 | BM25 recall@5 | default recall@5 | BM25 MRR | default MRR | MRR difference |",
    "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
  ];
  for (const row of rows) {
    const cells = [
      row.bm25.recallAt1,
      row.ranker.recallAt1,
      row.bm25.recallAt5,
      row.ranker.recallAt5,
      row.bm25.mrr,
      row.ranker.mrr,
    ].map((interval) => formatInterval(interval));
    lines.push(
      `| ${row.split} | ${row.dataset} | ${row.slice} | ${row.queries} | ${cells.join(" | ")} | ${formatInterval(row.difference.mrr, true)} |`,
    );
  }
  return lines.join("\n");
}
