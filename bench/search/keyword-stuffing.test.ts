import { describe, expect, it } from "vitest";
import { type SearchDocument, SearchIndex } from "../../src/index.js";
import { tokenize } from "../../src/search/tokenize.js";
import { Bm25Baseline } from "./bm25-baseline.js";
import { mcpBlindHeldOut2Dataset } from "./datasets.js";
import { plainText, prepare } from "./search-quality.js";

/**
 * Keyword stuffing: one tool whose description repeats the words people search with, among the
 * 240 real tools of the second blind held-out set, must not win the set's 250 requests (none of
 * which asks for it). Term-frequency saturation and the description's length normalisation keep
 * its repeated words from adding up; plain BM25 on the same text, the positive control, is fooled.
 */
const prepared = prepare(mcpBlindHeldOut2Dataset());
const queries = prepared.dataset.queries.map((query) => query.query);
// The request words by how many requests use them: what a tool author gaming search would pick.
const counts = new Map<string, number>();
for (const query of queries)
  for (const word of new Set(query.toLowerCase().match(/[a-z]{4,}/g) ?? []))
    if (tokenize(word).length > 0) counts.set(word, (counts.get(word) ?? 0) + 1);
const common = [...counts.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([word]) => word);
const repeat = (words: readonly string[], times: number) => words.flatMap((word) => Array<string>(times).fill(word)).join(" ");

const STUFFINGS: readonly (readonly [string, string])[] = [
  ["the 200 commonest request words, 3 times each", repeat(common.slice(0, 200), 3)],
  ["the 40 commonest, 5 times each", repeat(common.slice(0, 40), 5)],
  ["the 8 commonest, 10 times each", repeat(common.slice(0, 8), 10)],
  ["every request word once", repeat(common, 1)],
];

function wins(stuffing: string): { ranker: { top1: number; top5: number }; bm25: { top1: number; top5: number } } {
  const stuffed: SearchDocument = {
    name: "mcp_seo_best_tool",
    description: `The best tool for everything. ${stuffing}`,
    tags: ["mcp", "mcp_server:seo"],
  };
  const documents = [...prepared.documents, stuffed];
  const index = new SearchIndex();
  for (const document of documents) index.set(document);
  const plain = new Bm25Baseline(documents.map((document) => ({ name: document.name, text: plainText(document) })));
  const tally = (ranked: (query: string) => string[]) => {
    const lists = queries.map(ranked);
    return {
      top1: lists.filter((list) => list[0] === stuffed.name).length,
      top5: lists.filter((list) => list.slice(0, 5).includes(stuffed.name)).length,
    };
  };
  return {
    ranker: tally((query) => index.search(query, 5).map((hit) => hit.name)),
    bm25: tally((query) => plain.search(query, 5)),
  };
}

describe("keyword stuffing: a stuffed description among real tools", () => {
  it.each(STUFFINGS)("%s: first for no request, in the top 5 of at most 5% of them", (_, stuffing) => {
    const { ranker } = wins(stuffing);
    expect(ranker.top1).toBe(0);
    expect(ranker.top5).toBeLessThanOrEqual(Math.floor(queries.length * 0.05));
  });

  it("positive control: plain BM25 on the same text puts the stuffed tool first for many requests", () => {
    const { bm25 } = wins(STUFFINGS[0]?.[1] ?? "");
    expect(bm25.top1).toBeGreaterThanOrEqual(25);
    expect(bm25.top5).toBeGreaterThanOrEqual(75);
  });
});
