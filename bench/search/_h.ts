import { createUseEmbedder } from "../../src/use-embedder/index.js";
import { fileCachedEmbedder } from "./cached-embedder.js";
import { retrievalDatasets } from "./datasets.js";
import { measureSearchQuality } from "./search-quality.js";
const t = performance.now();
const embedder = fileCachedEmbedder(createUseEmbedder(), "node_modules/.cache/agent-tool-catalog-bench/use-lite.jsonl");
const r = await measureSearchQuality(retrievalDatasets(), embedder);
for (const x of r) if (x.kind !== "variant") console.log(x.dataset.padEnd(22), x.method.slice(0, 50).padEnd(50), [x.metrics.recallAt1, x.metrics.recallAt5, x.metrics.recallAt10, x.metrics.ndcgAt10, x.metrics.allGoldInTop10, x.zeroOverlapRecallAt10].map((v) => v.toFixed(3)).join(" "));
console.log((performance.now() - t) / 1000, "s");
