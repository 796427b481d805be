import { retrievalDatasets } from "./datasets.js";
import { measureSearchQuality } from "./search-quality.js";
const r = await measureSearchQuality(retrievalDatasets());
for (const x of r) console.log(x.dataset.padEnd(22), x.method.slice(0, 60).padEnd(60), [x.metrics.recallAt1, x.metrics.recallAt5, x.metrics.recallAt10, x.metrics.ndcgAt10, x.zeroOverlapRecallAt10].map((v) => v.toFixed(3)).join(" "), x.zeroOverlapShare.toFixed(2));
