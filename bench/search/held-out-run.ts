/**
 * The held-out bench section alone: `npx tsx bench/search/held-out-run.ts` prints its table and
 * writes bench/results/search-held-out.json (`npm run bench` runs it as the `search-held-out` section).
 */

import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { compareSplits, renderHeldOut } from "./held-out.js";

const results = compareSplits();
const markdown = [renderHeldOut(results)];
console.log(markdown[0]);
const output = join(resolve(dirname(fileURLToPath(import.meta.url)), "../results"), "search-held-out.json");
mkdirSync(dirname(output), { recursive: true });
writeFileSync(output, `${JSON.stringify({ generatedAt: new Date().toISOString(), results, markdown }, null, 2)}\n`);
console.log(`written ${output}`);
