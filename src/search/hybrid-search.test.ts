import { describe, expect, it } from "vitest";
import { type Embedder, embeddingKey, MAX_EMBEDDED_QUERY_CHARS, MemoryEmbeddingCache } from "./embedder.js";
import { HybridSearch } from "./hybrid-search.js";

/**
 * A small real embedder: words (with a few synonyms folded together) hashed into 32 dimensions.
 * It records every call so the tests can count the work.
 */
function wordEmbedder(options: { batchSize?: number; id?: string } = {}) {
  const synonyms: Record<string, string> = {
    press: "click",
    tap: "click",
    smash: "click",
    button: "element",
    picture: "screenshot",
  };
  const calls: string[][] = [];
  const embedder: Embedder = {
    id: options.id ?? "words-32",
    dimensions: 32,
    ...(options.batchSize === undefined ? {} : { batchSize: options.batchSize }),
    async embed(texts, { signal } = {}) {
      signal?.throwIfAborted();
      calls.push([...texts]);
      return texts.map((text) => {
        const vector = new Array<number>(32).fill(0);
        for (const raw of text.toLowerCase().match(/[a-z]+/g) ?? []) {
          const word = synonyms[raw] ?? raw;
          let hash = 7;
          for (const char of word) hash = (hash * 31 + char.charCodeAt(0)) % 32;
          vector[hash] = (vector[hash] as number) + 1;
        }
        return vector;
      });
    },
  };
  return { embedder, calls, embedded: () => calls.flat() };
}

const tools = [
  { name: "browser_click", description: "Click an element on the page." },
  { name: "browser_screenshot", description: "Take a screenshot of the page." },
  { name: "send_email", description: "Send an email message." },
  { name: "weather_forecast", description: "Weather forecast for a city." },
];

describe("HybridSearch", () => {
  it("is the keyword search alone without an embedder (off by default)", async () => {
    const search = new HybridSearch();
    for (const tool of tools) search.set(tool);
    expect(search.semantic).toBe(false);
    expect(await search.searchHybrid("email", 3)).toEqual(search.search("email", 3));
    expect(await search.searchHybrid("smash the button", 3)).toEqual([]);
  });

  it("reaches a tool that shares no word with the request, through the vectors", async () => {
    const { embedder } = wordEmbedder();
    const search = new HybridSearch({ embedder });
    for (const tool of tools) search.set(tool);
    expect(search.search("smash the button")).toEqual([]);
    const hits = await search.searchHybrid("smash the button", 2);
    expect(hits[0]?.name).toBe("browser_click");
    // Keyword matches still count: 0.3 of the mix is the normalised BM25.
    expect((await search.searchHybrid("send an email", 1))[0]?.name).toBe("send_email");
  });

  it("embeds each distinct text once, in batches, and again only when the text changes", async () => {
    const { embedder, calls, embedded } = wordEmbedder({ batchSize: 2 });
    const search = new HybridSearch({ embedder });
    for (const tool of tools) search.set(tool);
    search.set({ name: "email_copy", description: "Send an email message." });
    search.set({ name: "send_email", description: "Send an email message." });
    expect(search.pendingCount).toBe(5);
    await search.prepare();
    // 5 documents, 4 distinct texts (name words differ: email_copy has its own text), batches of 2.
    expect(embedded()).toHaveLength(5);
    expect(calls.every((batch) => batch.length <= 2)).toBe(true);
    calls.length = 0;
    search.set({ name: "send_email", description: "Send an email message." });
    await search.prepare();
    expect(calls).toEqual([]);
    search.set({ name: "send_email", description: "Send a mail message." });
    await search.prepare();
    expect(embedded()).toHaveLength(1);
    expect(search.delete("send_email")).toBe(true);
    expect((await search.searchHybrid("send mail message", 5)).map((hit) => hit.name)).not.toContain("send_email");
  });

  it("reuses vectors from a persistent cache across instances (no re-embedding at start)", async () => {
    const cache = new MemoryEmbeddingCache();
    const first = wordEmbedder();
    const a = new HybridSearch({ embedder: first.embedder, embeddingCache: cache });
    for (const tool of tools) a.set(tool);
    await a.prepare();
    expect(cache.size).toBe(4);
    const second = wordEmbedder();
    const b = new HybridSearch({ embedder: second.embedder, embeddingCache: cache });
    for (const tool of tools) b.set(tool);
    await b.prepare();
    expect(second.calls).toEqual([]);
    // Another embedder id never reads the first one's vectors.
    const other = wordEmbedder({ id: "words-32-v2" });
    const c = new HybridSearch({ embedder: other.embedder, embeddingCache: cache });
    for (const tool of tools) c.set(tool);
    await c.prepare();
    expect(other.embedded()).toHaveLength(4);
    expect(embeddingKey("a", "text")).not.toBe(embeddingKey("b", "text"));
    expect(embeddingKey("a", "text")).not.toBe(embeddingKey("a", "texts"));
  });

  it("caps the embedded query and honours the abort signal", async () => {
    const { embedder, calls } = wordEmbedder();
    const search = new HybridSearch({ embedder });
    for (const tool of tools) search.set(tool);
    await search.prepare();
    calls.length = 0;
    const image = `click ${"A".repeat(18_000)}`;
    await search.searchHybrid(image, 3);
    expect(calls[0]?.[0]?.length).toBe(MAX_EMBEDDED_QUERY_CHARS);
    const controller = new AbortController();
    controller.abort();
    await expect(search.searchHybrid("click", 3, undefined, { signal: controller.signal })).rejects.toThrow();
  });

  it("applies the candidate filter to both halves", async () => {
    const { embedder } = wordEmbedder();
    const search = new HybridSearch({ embedder });
    for (const tool of tools) search.set(tool);
    const hits = await search.searchHybrid("press the button click", 4, (name) => name !== "browser_click");
    expect(hits.map((hit) => hit.name)).not.toContain("browser_click");
  });

  it("rejects vectors of the wrong size", async () => {
    const search = new HybridSearch({
      embedder: { id: "bad", dimensions: 8, embed: async (texts) => texts.map(() => [1, 2, 3]) },
    });
    search.set(tools[0] as (typeof tools)[number]);
    await expect(search.prepare()).rejects.toThrow(/declared 8/);
  });
});
