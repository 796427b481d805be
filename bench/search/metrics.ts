/** Retrieval metrics of one ranked list against its gold set. */
export interface QueryMetrics {
  readonly recallAt1: number;
  readonly recallAt5: number;
  readonly recallAt10: number;
  readonly ndcgAt10: number;
  readonly allGoldInTop10: number;
}

/** Fraction of the gold items found in the first `k` results. */
export function recallAt(ranked: readonly string[], gold: readonly string[], k: number): number {
  if (gold.length === 0) return 0;
  const top = new Set(ranked.slice(0, k));
  return gold.filter((item) => top.has(item)).length / gold.length;
}

/** Normalised discounted cumulative gain at `k`, with binary relevance. */
export function ndcgAt(ranked: readonly string[], gold: readonly string[], k: number): number {
  const relevant = new Set(gold);
  let dcg = 0;
  ranked.slice(0, k).forEach((item, index) => {
    if (relevant.has(item)) dcg += 1 / Math.log2(index + 2);
  });
  let ideal = 0;
  for (let index = 0; index < Math.min(k, gold.length); index++) ideal += 1 / Math.log2(index + 2);
  return ideal === 0 ? 0 : dcg / ideal;
}

/** Every metric of one query. */
export function queryMetrics(ranked: readonly string[], gold: readonly string[]): QueryMetrics {
  return {
    recallAt1: recallAt(ranked, gold, 1),
    recallAt5: recallAt(ranked, gold, 5),
    recallAt10: recallAt(ranked, gold, 10),
    ndcgAt10: ndcgAt(ranked, gold, 10),
    allGoldInTop10: recallAt(ranked, gold, 10) === 1 ? 1 : 0,
  };
}

/** The mean of each metric over many queries. */
export function meanMetrics(all: readonly QueryMetrics[]): QueryMetrics {
  const mean = (pick: (metrics: QueryMetrics) => number) =>
    all.length === 0 ? 0 : all.reduce((sum, metrics) => sum + pick(metrics), 0) / all.length;
  return {
    recallAt1: mean((m) => m.recallAt1),
    recallAt5: mean((m) => m.recallAt5),
    recallAt10: mean((m) => m.recallAt10),
    ndcgAt10: mean((m) => m.ndcgAt10),
    allGoldInTop10: mean((m) => m.allGoldInTop10),
  };
}
