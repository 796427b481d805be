import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { measureCallOverhead } from "./call-overhead.js";
import { replaceBenchSection } from "./readme-section.js";
import { Bm25Baseline, baselineTokens } from "./search/bm25-baseline.js";
import { retrievalDatasets } from "./search/datasets.js";
import { loadMetatool } from "./search/metatool-data.js";
import { ndcgAt, queryMetrics, recallAt } from "./search/metrics.js";
import { CONFIGURATIONS, measureSearchQuality } from "./search/search-quality.js";
import { measureSearchSpeed } from "./search/search-speed.js";
import { syntheticCatalog } from "./search/synthetic-catalog.js";
import { percentile, seededRandom } from "./stats.js";
import { renderSummary } from "./summary.js";
import { definitionTokens, measureTokenFootprint } from "./tokens/token-footprint.js";
import { measureGrep } from "./tools/grep-bench.js";
import { measureApplyPatch } from "./tools/patch-bench.js";

describe("metrics", () => {
  it("computes recall, nDCG and all-gold on hand-checked lists", () => {
    expect(recallAt(["a", "b", "c"], ["c", "d"], 2)).toBe(0);
    expect(recallAt(["a", "b", "c"], ["c", "d"], 3)).toBe(0.5);
    expect(ndcgAt(["x", "a"], ["a"], 10)).toBeCloseTo(1 / Math.log2(3));
    expect(ndcgAt(["a", "b"], ["b", "a"], 10)).toBe(1);
    expect(queryMetrics(["b", "q", "a"], ["a", "b"])).toMatchObject({ recallAt1: 0.5, allGoldInTop10: 1 });
  });

  it("takes nearest-rank percentiles", () => {
    expect(percentile([5, 1, 4, 2, 3], 50)).toBe(3);
    expect(percentile([1, 2, 3, 4, 100], 99)).toBe(100);
    expect(percentile([], 50)).toBeNaN();
  });

  it("makes the same random numbers for the same seed", () => {
    const a = seededRandom(1);
    const b = seededRandom(1);
    expect([a(), a()]).toEqual([b(), b()]);
  });
});

describe("BM25 baseline", () => {
  it("ranks by rare query words and ignores unknown ones", () => {
    const baseline = new Bm25Baseline([
      { name: "weather", text: "weather forecast for cities" },
      { name: "stocks", text: "stock prices and market news" },
      { name: "news", text: "latest news headlines news" },
    ]);
    expect(baseline.search("news today", 3)).toEqual(["news", "stocks"]);
    expect(baseline.search("forecast", 1)).toEqual(["weather"]);
    expect(baseline.search("zebra", 3)).toEqual([]);
    expect(baselineTokens("Hello, World-2")).toEqual(["hello", "world", "2"]);
  });
});

describe("the benchmark on the real data set", () => {
  const data = loadMetatool();

  it("loads the MetaTool files with gold labels that name real tools", () => {
    const ids = new Set(data.tools.map((tool) => tool.id));
    expect(data.tools).toHaveLength(199);
    expect(data.single).toHaveLength(995);
    expect(data.multi.every((query) => query.gold.length >= 2 && query.gold.every((id) => ids.has(id)))).toBe(true);
  });

  it("keeps the default ranker at or above plain BM25 on every data set", async () => {
    const results = await measureSearchQuality(retrievalDatasets(), undefined, CONFIGURATIONS.slice(0, 1));
    for (const dataset of retrievalDatasets()) {
      const of = (kind: string) => results.find((result) => result.dataset === dataset.name && result.kind === kind);
      const plain = of("baseline");
      const ranker = of("default");
      if (plain === undefined || ranker === undefined) throw new Error(`missing results for ${dataset.name}`);
      expect(ranker.metrics.recallAt5, dataset.name).toBeGreaterThanOrEqual(plain.metrics.recallAt5);
      expect(ranker.metrics.ndcgAt10, dataset.name).toBeGreaterThanOrEqual(plain.metrics.ndcgAt10);
    }
    const metatool = results.find((result) => result.dataset === "MetaTool single-tool" && result.kind === "default");
    expect(metatool?.metrics.recallAt5).toBeGreaterThanOrEqual(0.7);
  });

  it("smoke-runs the speed and overhead benchmarks on small inputs", async () => {
    const catalog = syntheticCatalog(data, 50);
    expect(new Set(catalog.map((tool) => tool.name)).size).toBe(50);
    const [speed] = measureSearchSpeed(data, retrievalDatasets(), [50]);
    expect(speed?.tools).toBe(50);
    expect(speed?.queryP99Ms).toBeGreaterThan(0);
    const overhead = await measureCallOverhead(200, 2);
    expect(overhead.runCallMicros).toBeGreaterThan(0);
    const summary = renderSummary({
      machine: { node: "v20", cpus: 2, cpuModel: "cpu", date: "2026-01-01" },
      callOverhead: overhead,
    });
    expect(summary).toContain("Per-call overhead");
  });
});

describe("token footprint", () => {
  it("counts real tokens, and deferred loading sends far less than eager at 200 tools", () => {
    expect(definitionTokens([])).toBe(1);
    const [result] = measureTokenFootprint(loadMetatool(), [200]);
    expect(result?.eagerTokens).toBeGreaterThan(10_000);
    expect(result?.deferredCut).toBeGreaterThanOrEqual(0.95);
    expect(result?.findToolRecallAt5).toBeGreaterThan(0.6);
  });
});

describe("grep bench", () => {
  it("counts the same matching lines as the files hold (and as rg, where installed)", async () => {
    const directory = await mkdtemp(path.join(tmpdir(), "atc-grep-bench-"));
    try {
      await writeFile(path.join(directory, "a.txt"), "needle\nhay\nneedle again\n");
      await writeFile(path.join(directory, "b.txt"), "hay only\n");
      const result = await measureGrep(directory, ["needle"], 1);
      expect(result.files).toBe(2);
      expect(result.cases[0]?.matches).toBe(2);
      if (result.rgVersion !== undefined) expect(result.cases[0]?.rgMatches).toBe(2);
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });
});

describe("apply_patch bench", () => {
  it("checks the patched content (and GNU patch's, where installed) on a small file", async () => {
    const result = await measureApplyPatch(400, 5, 1);
    expect(result.lines).toBe(400);
    if (result.gnuPatchMs !== undefined) expect(result.sameResult).toBe(true);
  });
});

describe("README section", () => {
  it("replaces only the text between the markers", () => {
    const readme = "a\n<!-- bench:start -->\nold\n<!-- bench:end -->\nb";
    expect(replaceBenchSection(readme, "new")).toBe("a\n<!-- bench:start -->\nnew\n<!-- bench:end -->\nb");
    expect(() => replaceBenchSection("no markers", "x")).toThrowError(/no <!-- bench:start -->/);
  });
});
