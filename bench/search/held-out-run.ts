/**
 * The held-out bench section: `npx tsx bench/search/held-out-run.ts` prints the table and writes
 * bench/results/search-held-out.json (not committed; the lead's bench run writes it).
 */

import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { compareSplits, formatInterval } from "./held-out.js";

const results = compareSplits();
console.log(
  "| split | data set | slice | queries | BM25 recall@1 | default recall@1 | BM25 recall@5 | default recall@5 | BM25 MRR | default MRR | MRR difference |",
);
console.log("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
for (const row of results) {
  const cells = [
    row.bm25.recallAt1,
    row.ranker.recallAt1,
    row.bm25.recallAt5,
    row.ranker.recallAt5,
    row.bm25.mrr,
    row.ranker.mrr,
  ].map((interval) => formatInterval(interval));
  console.log(
    `| ${row.split} | ${row.dataset} | ${row.slice} | ${row.queries} | ${cells.join(" | ")} | ${formatInterval(row.difference.mrr, true)} |`,
  );
}
const output = join(resolve(dirname(fileURLToPath(import.meta.url)), "../results"), "search-held-out.json");
mkdirSync(dirname(output), { recursive: true });
writeFileSync(output, `${JSON.stringify({ generatedAt: new Date().toISOString(), results }, null, 2)}\n`);
console.log(`written ${output}`);
