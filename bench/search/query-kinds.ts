/**
 * Plain BM25 against the default ranker on slices of the blind held-out set 2 (by number of gold
 * tools, product name, values, length, gold server), and the requests where the default ranks the
 * first gold tool lower. Report only: `npx tsx bench/search/query-kinds.ts`. The slices are read
 * off the requests with simple patterns; they were written after the set was committed and are not
 * a tuning target (a change chosen on them spoils the set).
 */

import { mcpBlindHeldOut2Dataset } from "./datasets.js";
import type { LabelledQuery } from "./metatool-data.js";
import { CONFIGURATIONS, measureSearchQuality } from "./search-quality.js";

const product = /asana|linear|jira|gitlab|mongo|exa\b|playwright|calendar|\bgit\b/i;
const value = /[/~]|https?:|\.[a-z]{2,4}\b|#|\b[A-Z]+-\d+\b|\buid\b|\d{3,}|\[|\bv\d/;
const words = (query: LabelledQuery) => query.query.split(/\s+/).length;
const servers = [
  "chrome-devtools",
  "ea-playwright",
  "desktop-commander",
  "git-cyanheads",
  "gitlab",
  "linear",
  "asana",
  "jira",
  "mongodb",
  "tavily",
  "exa",
  "google-calendar",
];

const slices: [string, (query: LabelledQuery) => boolean][] = [
  ["all", () => true],
  ["one tool", (query) => query.gold.length === 1],
  ["two or three tools", (query) => query.gold.length > 1],
  ["names the product", (query) => product.test(query.query)],
  ["no product name", (query) => !product.test(query.query)],
  ["has a value (path, URL, id, selector)", (query) => value.test(query.query)],
  ["no value", (query) => !value.test(query.query)],
  ["short (<= 7 words)", (query) => words(query) <= 7],
  ["long (> 12 words)", (query) => words(query) > 12],
  ...servers.map(
    (server) =>
      [`gold on ${server}`, (query: LabelledQuery) => query.gold.some((id) => id.startsWith(`${server}.`))] as [
        string,
        (query: LabelledQuery) => boolean,
      ],
  ),
];

const dataset = mcpBlindHeldOut2Dataset();
const format = (value: number) => value.toFixed(3);
console.log(
  "| slice | queries | BM25 recall@1 | BM25 recall@5 | BM25 nDCG@10 | default recall@1 | default recall@5 | default nDCG@10 |",
);
console.log("| --- | --- | --- | --- | --- | --- | --- | --- |");
for (const [name, keep] of slices) {
  const queries = dataset.queries.filter(keep);
  const [plain, ranker] = await measureSearchQuality([{ ...dataset, queries }], undefined, CONFIGURATIONS.slice(0, 1));
  if (plain === undefined || ranker === undefined) throw new Error(`no results for ${name}`);
  const cells = [plain, ranker].flatMap((result) => [
    format(result.metrics.recallAt1),
    format(result.metrics.recallAt5),
    format(result.metrics.ndcgAt10),
  ]);
  console.log(`| ${name} | ${queries.length} | ${cells.join(" | ")} |`);
}
