import type { SearchDocument } from "./search-index.js";

/**
 * Turns texts into vectors, for the semantic half of the hybrid search. Off unless the host gives
 * one: the catalog never downloads a model by itself. `agent-tool-catalog/use-embedder` ships one
 * with its weights; any embedding API the host already has fits (see `embedderFromEmbedMany`).
 * @public
 */
export interface Embedder {
  /** Identifies the model (and its version): cached vectors are kept per id. */
  readonly id: string;
  /** Length of every vector `embed` returns. */
  readonly dimensions: number;
  /** One vector per text, in order. Long lists are split into batches before this is called. */
  embed(texts: readonly string[], options: { readonly signal?: AbortSignal | undefined }): Promise<ArrayLike<number>[]>;
  /**
   * Most texts per `embed` call (`Infinity`: all in one call).
   * @defaultValue 64
   */
  readonly batchSize?: number;
}

/**
 * Keeps tool vectors across process starts, so that a large catalog is not embedded again at every
 * start. Keys combine the embedder id and a hash of the embedded text. Errors are the host's: a
 * failing cache read counts as a miss, a failing write is ignored.
 * @public
 */
export interface EmbeddingCache {
  /** The stored vector, or `undefined`. */
  get(key: string): Float32Array | undefined | Promise<Float32Array | undefined>;
  /** Stores a vector. */
  set(key: string, vector: Float32Array): void | Promise<void>;
}

/** Most characters of a query that are embedded: one real query carried an 18,000-character image. */
export const MAX_EMBEDDED_QUERY_CHARS = 2_000;
/** Most characters of a tool's text that are embedded (sentence encoders read far less anyway). */
const MAX_EMBEDDED_DOCUMENT_CHARS = 2_000;

/** The text of a tool that is embedded: its name in words, title, description, parameter names. */
export function embeddingText(document: SearchDocument): string {
  const name = document.name.replace(/[_.:-]+/g, " ").replace(/([a-z0-9])([A-Z])/g, "$1 $2");
  const parameters = (document.parameters ?? []).map((parameter) => parameter.name.replace(/[_-]+/g, " "));
  const head = document.title === undefined ? name : `${name} (${document.title})`;
  const text = `${head}: ${document.description}${parameters.length > 0 ? ` Parameters: ${parameters.join(", ")}.` : ""}`;
  return text.slice(0, MAX_EMBEDDED_DOCUMENT_CHARS);
}

/**
 * The cache key of a text under an embedder: the embedder id, the text length and a 128-bit hash
 * of the text (four 32-bit multiply-xor lanes; plain JavaScript, so the root entry stays free of
 * Node built-ins). Not a cryptographic hash: keys name texts the host indexed itself.
 */
export function embeddingKey(embedderId: string, text: string): string {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ 0x5bd1e995;
  let c = 0x27d4eb2f;
  let d = 0x165667b1;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    a = Math.imul(a ^ code, 0x01000193);
    b = Math.imul(b ^ code, 0x5bd1e995);
    c = Math.imul(c ^ code, 0x85ebca6b) ^ (c >>> 15);
    d = Math.imul(d ^ code, 0xc2b2ae35) ^ (d >>> 13);
  }
  const hex = [a, b, c, d].map((lane) => (lane >>> 0).toString(16).padStart(8, "0")).join("");
  return `${embedderId}:${text.length}:${hex}`;
}

/** A vector scaled to unit length (so a dot product is the cosine); zero vectors stay zero. */
export function normalizeVector(vector: ArrayLike<number>, dimensions: number): Float32Array {
  if (vector.length !== dimensions) {
    throw new RangeError(`The embedder returned a vector of ${vector.length} numbers; it declared ${dimensions}.`);
  }
  const out = Float32Array.from(vector);
  let norm = 0;
  for (let i = 0; i < out.length; i++) norm += (out[i] as number) ** 2;
  norm = Math.sqrt(norm);
  if (norm > 0) for (let i = 0; i < out.length; i++) out[i] = (out[i] as number) / norm;
  return out;
}

/**
 * An {@link EmbeddingCache} in memory, bounded by entry count (oldest dropped first).
 *
 * @public
 */
export class MemoryEmbeddingCache implements EmbeddingCache {
  private readonly entries = new Map<string, Float32Array>();

  constructor(private readonly maxEntries = 200_000) {}

  get(key: string): Float32Array | undefined {
    return this.entries.get(key);
  }

  set(key: string, vector: Float32Array): void {
    this.entries.delete(key);
    this.entries.set(key, vector);
    if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
  }

  /** The number of vectors held. */
  get size(): number {
    return this.entries.size;
  }
}
