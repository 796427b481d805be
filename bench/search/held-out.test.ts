import { describe, expect, it } from "vitest";
import { mcpBlindHeldOut3Dataset, mcpBlindHeldOut4Dataset, mcpRobustnessDataset } from "./datasets.js";
import { bootstrap, compare, heldOutDatasets, type MetricIntervals, rankBoth } from "./held-out.js";

/**
 * The held-out bound: on data nothing was chosen on, find_tool's ranker may not rank below plain
 * BM25 on the same text by more than the noise. For every held-out set, and every query kind of the
 * robustness set, the paired 95% bootstrap interval of ranker − BM25 must reach 0 or above for
 * recall@1, recall@5 and MRR (an interval wholly below 0 is a significant loss).
 */
describe("held-out retrieval: the ranker is not significantly worse than plain BM25", () => {
  const comparisons = heldOutDatasets().flatMap((dataset) => compare("held-out", dataset));

  it("robustness set: 153 queries with unique ids, every gold id a tool of the two held-out catalogs", () => {
    const set = mcpRobustnessDataset();
    const ids = new Set(set.tools.map((tool) => tool.id));
    expect(ids.size).toBe(378);
    expect(set.queries).toHaveLength(153);
    expect(new Set(set.queries.map((query) => query.id)).size).toBe(153);
    expect(set.queries.filter((query) => query.gold.length === 0 || !query.gold.every((id) => ids.has(id)))).toEqual([]);
    expect(set.queries.filter((query) => query.gold.length > 1)).toHaveLength(5);
  });

  it("covers the five held-out sets, the robustness set's eight query kinds, the third blind set's five and the fourth's six", () => {
    expect(comparisons.filter((row) => row.slice === "all").map((row) => row.queries)).toEqual([191, 250, 153, 112, 136]);
    expect(comparisons.filter((row) => row.slice !== "all")).toHaveLength(19);
    expect(
      comparisons
        .filter((row) => row.dataset === "MCP blind held-out 3" && row.slice !== "all")
        .map((row) => [row.slice, row.queries]),
    ).toEqual([
      ["paraphrase", 56],
      ["short", 20],
      ["typo", 12],
      ["multi", 10],
      ["non-english", 14],
    ]);
    expect(
      comparisons
        .filter((row) => row.dataset === "MCP blind held-out 4" && row.slice !== "all")
        .map((row) => [row.slice, row.queries]),
    ).toEqual([
      ["paraphrase", 43],
      ["noword", 20],
      ["short", 25],
      ["typo", 12],
      ["multi", 10],
      ["non-english", 26],
    ]);
  });

  it("fourth blind set: 136 queries over 607 tools, gold only among its own 173, multi-intent queries need all their tools", () => {
    const set = mcpBlindHeldOut4Dataset();
    const ids = new Set(set.tools.map((tool) => tool.id));
    expect(ids.size).toBe(607);
    const own = new Set(
      set.tools.filter((tool) => /^(cloudflare|trello|airtable|pinecone|airbnb)\./.test(tool.id)).map((tool) => tool.id),
    );
    expect(own.size).toBe(173);
    expect(set.queries.filter((query) => query.gold.length === 0 || !query.gold.every((id) => own.has(id)))).toEqual([]);
    expect(set.queries.filter((query) => query.goldMode === "all").map((query) => query.kind)).toEqual(Array(10).fill("multi"));
  });

  it("third blind set: 112 queries over 434 tools, gold only among its own 56, multi-intent queries need all their tools", () => {
    const set = mcpBlindHeldOut3Dataset();
    const ids = new Set(set.tools.map((tool) => tool.id));
    expect(ids.size).toBe(434);
    const own = new Set(
      set.tools
        .filter((tool) => /^(todoist|circleci|elasticsearch|figma|youtube-transcript)\./.test(tool.id))
        .map((tool) => tool.id),
    );
    expect(own.size).toBe(56);
    expect(set.queries.filter((query) => query.gold.length === 0 || !query.gold.every((id) => own.has(id)))).toEqual([]);
    expect(new Set(set.queries.flatMap((query) => query.gold)).size).toBe(56);
    expect(set.queries.filter((query) => query.goldMode === "all").map((query) => query.kind)).toEqual(Array(10).fill("multi"));
  });

  it.each(comparisons.map((row) => [`${row.dataset} / ${row.slice} (${row.queries} queries)`, row] as const))("%s", (_, row) => {
    const below = (Object.keys(row.difference) as (keyof MetricIntervals)[]).filter((metric) => row.difference[metric].high < 0);
    expect(below, JSON.stringify(row.difference)).toEqual([]);
  });

  it("positive control: the bound catches a ranker that is worse (every field but the description off)", () => {
    const [dataset] = heldOutDatasets();
    if (dataset === undefined) throw new Error("no held-out set");
    const off = { weight: 0, lengthNormalization: 0 };
    const { bm25, ranker } = rankBoth(dataset, {
      fields: { name: off, server: off, title: off, tags: off, parameters: off },
      relatedWeight: 0,
    });
    const mrr = bootstrap(
      ranker.map((scores) => scores.reciprocalRank),
      bm25.map((scores) => scores.reciprocalRank),
    );
    expect(mrr.high).toBeLessThan(0);
  });
});
