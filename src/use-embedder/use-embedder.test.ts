import { describe, expect, it } from "vitest";
import { mcpServersDataset } from "../../bench/search/datasets.js";
import { createRegistry } from "../registry/registry.js";
import { searchDocumentOf } from "../registry/search-document.js";
import { HybridSearch } from "../search/hybrid-search.js";
import { createUseEmbedder, USE_EMBEDDER_ID } from "./index.js";

function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += (a[i] as number) * (b[i] as number);
    na += (a[i] as number) ** 2;
    nb += (b[i] as number) ** 2;
  }
  return dot / Math.sqrt(na * nb);
}

// The real model from the installed weights (no download): about a second to load, 30 ms a text.
describe("use-embedder (Universal Sentence Encoder lite, shipped weights)", () => {
  const embedder = createUseEmbedder();

  it("returns 512-number vectors that place paraphrases closer than unrelated text", async () => {
    expect(embedder.id).toBe(USE_EMBEDDER_ID);
    const [click, press, weather] = await embedder.embed(
      ["Click an element on the page", "press the submit button", "weather forecast for Paris"],
      {},
    );
    expect(click).toHaveLength(512);
    expect(cosine(click as number[], press as number[])).toBeGreaterThan(cosine(weather as number[], press as number[]));
    expect(await embedder.embed([], {})).toEqual([]);
  }, 60_000);

  it("finds real MCP tools that share no word with the request, where the keyword search cannot", async () => {
    const dataset = mcpServersDataset();
    const registry = createRegistry({ tools: dataset.tools.map((tool) => tool.definition) });
    // Related words off: "press" is related to "click", so the keyword search alone would find it.
    const hybrid = new HybridSearch({ embedder, relatedWeight: 0 });
    for (const descriptor of registry.list({ tier: "deferred" })) hybrid.set(searchDocumentOf(descriptor));
    const query = "press the submit button";
    expect(hybrid.search(query, 5).map((hit) => hit.name)).not.toContain("mcp_puppeteer_puppeteer_click");
    const hits = (await hybrid.searchHybrid(query, 5)).map((hit) => hit.name);
    expect(hits).toContain("mcp_puppeteer_puppeteer_click");
  }, 180_000);

  it("stops before loading or embedding when the signal is aborted", async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(embedder.embed(["text"], { signal: controller.signal })).rejects.toThrow();
  });
});
