/**
 * Plugging an embedding API the host already has into find_tool's hybrid search: the AI SDK's
 * `embedMany` on any provider (OpenAI, Google, Cohere, a local server...). The catalog never
 * downloads a model by itself; the host chooses and pays for this one.
 */

import { type Embedder, HybridSearch } from "agent-tool-catalog";
import { type EmbeddingModel, embedMany } from "ai";

/** An {@link Embedder} that calls `embedMany` with the host's model. */
export function embedderFromEmbedMany(model: EmbeddingModel, options: { id: string; dimensions: number }): Embedder {
  return {
    id: options.id,
    dimensions: options.dimensions,
    batchSize: 96,
    async embed(texts, { signal }) {
      const { embeddings } = await embedMany({
        model,
        values: [...texts],
        ...(signal === undefined ? {} : { abortSignal: signal }),
      });
      return embeddings;
    },
  };
}

/** A hybrid search over the host's tool documents with that embedder. */
export function hybridToolSearch(model: EmbeddingModel, tools: readonly { name: string; description: string }[]): HybridSearch {
  const search = new HybridSearch({ embedder: embedderFromEmbedMany(model, { id: "host-embeddings@1", dimensions: 3 }) });
  for (const tool of tools) search.set(tool);
  return search;
}

// `npx tsx examples/embedder-from-embed-many.ts`: a fake provider (3-number vectors from a few
// keywords) stands in for a real one, so this runs without a key; with a real provider only the
// model line changes, e.g. `openai.embedding("text-embedding-3-small")`.
if (process.argv[1] !== undefined && import.meta.url.endsWith(process.argv[1].split("/").pop() ?? "\0")) {
  const { MockEmbeddingModelV3 } = await import("ai/test");
  const axes = [/click|press|button/i, /mail|message|send/i, /weather|rain|forecast/i];
  const model = new MockEmbeddingModelV3({
    doEmbed: async ({ values }) => ({
      embeddings: values.map((value) => axes.map((axis) => (axis.test(value) ? 1 : 0.01))),
      warnings: [],
    }),
  });
  const tools = [
    { name: "click_element", description: "Press a button on the page." },
    { name: "send_email", description: "Send an email message." },
    { name: "weather_forecast", description: "Forecast for a city." },
  ];
  const search = hybridToolSearch(model, tools);
  for (const query of ["will it rain tomorrow", "press the blue button", "send a message to my boss"]) {
    const hits = await search.searchHybrid(query, 2);
    console.log(`${query} -> ${hits.map((hit) => `${hit.name} (${hit.score.toFixed(2)})`).join(", ")}`);
  }
}
