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
