import { checkNumberOption } from "../errors/check-number-option.js";
import type { SearchHit } from "../tool/tool-context.js";
import {
  type Embedder,
  type EmbeddingCache,
  embeddingKey,
  embeddingText,
  MAX_EMBEDDED_QUERY_CHARS,
  normalizeVector,
} from "./embedder.js";
import { type SearchDocument, SearchIndex, type SearchIndexOptions } from "./search-index.js";
import { TopK } from "./top-k.js";

/**
 * Options of a {@link HybridSearch}.
 *
 * @public
 */
export interface HybridSearchOptions extends SearchIndexOptions {
  /** Adds the semantic half; without it the search is the keyword index alone. */
  readonly embedder?: Embedder | undefined;
  /** Keeps tool vectors across starts (keyed by embedder id and text hash). */
  readonly embeddingCache?: EmbeddingCache | undefined;
  /**
   * Share of the cosine similarity in the mixed score; the rest is the keyword score divided by
   * the best keyword score of the query. 0.7 was the best nDCG at 10 on the development set with the
   * shipped USE-lite embedder (`bench/results/search-quality.json` lists 0.2 to 0.8 on every set);
   * an embedder whose cosines spread differently may want another value.
   * @defaultValue 0.7
   */
  readonly semanticWeight?: number;
  /**
   * How many candidates each half contributes before mixing: a whole number at least 1, or
   * `Infinity` for every tool (the mix is then exact over the whole catalog, at the cost of
   * scoring every tool in both halves on each search).
   * @defaultValue 100
   */
  readonly candidates?: number;
}

/**
 * Options of one hybrid search.
 *
 * @public
 */
export interface HybridSearchCallOptions {
  /** Cancels the embedding calls. */
  readonly signal?: AbortSignal | undefined;
}

/**
 * Keyword search (BM25F, {@link SearchIndex}) mixed with the cosine similarity of sentence
 * vectors: `semanticWeight × cosine + (1 − semanticWeight) × keyword / best keyword`, over the union
 * of each half's top candidates. The vectors reach tools that share no word with the request
 * ("press the submit button" → `click`), which no keyword method finds. Tool vectors are computed
 * once per distinct text, in batches, lazily before the first hybrid search after a change.
 * @public
 */
export class HybridSearch {
  /** The keyword half; updated in place with every change. */
  readonly keyword: SearchIndex;
  private readonly embedder: Embedder | undefined;
  private readonly cache: EmbeddingCache | undefined;
  private readonly semanticWeight: number;
  private readonly candidates: number;
  /** Per document key: the cache key of its text, and its unit vector once computed. */
  private readonly textKeys = new Map<string, { readonly key: string; readonly text: string }>();
  private readonly vectors = new Map<string, Float32Array>();
  /** Vectors by text key, shared by documents with the same text. */
  private readonly byText = new Map<string, Float32Array>();
  private readonly pending = new Set<string>();
  private embedding: Promise<void> | undefined;

  constructor(options: HybridSearchOptions = {}) {
    this.keyword = new SearchIndex(options);
    this.embedder = options.embedder;
    if (this.embedder !== undefined) {
      // The host's own embedder too: a NaN batch size embedded nothing, silently.
      checkNumberOption(this.embedder.dimensions, "embedder.dimensions", { min: 1, integer: true }, "search");
      checkNumberOption(this.embedder.batchSize, "embedder.batchSize", { min: 1, integer: true, infinite: true }, "search");
    }
    this.cache = options.embeddingCache;
    this.semanticWeight = checkNumberOption(options.semanticWeight ?? 0.7, "semanticWeight", { min: 0, max: 1 }, "search");
    this.candidates = checkNumberOption(
      options.candidates ?? 100,
      "candidates",
      { min: 1, integer: true, infinite: true },
      "search",
    );
  }

  /** True when an embedder was given. */
  get semantic(): boolean {
    return this.embedder !== undefined;
  }

  /** The number of documents. */
  get size(): number {
    return this.keyword.size;
  }

  /** The number of documents still waiting for a vector. */
  get pendingCount(): number {
    return this.pending.size;
  }

  /** Adds or replaces a document. Its vector is computed at the next hybrid search (or `prepare()`). */
  set(document: SearchDocument): void {
    this.keyword.set(document);
    this.track(document);
  }

  /**
   * Adds or replaces a document with its keyword postings staged (see {@link SearchIndex.stage}):
   * for loading many at once.
   */
  stage(document: SearchDocument): void {
    this.keyword.stage(document);
    this.track(document);
  }

  /** Writes staged keyword postings, about `limit` of them (see {@link SearchIndex.commitStaged}). */
  commitStaged(limit?: number): boolean {
    return this.keyword.commitStaged(limit);
  }

  /** Notes that a document's vector is to be computed (or reused), with an embedder. */
  private track(document: SearchDocument): void {
    if (this.embedder === undefined) return;
    const id = document.id ?? document.name;
    const text = embeddingText(document);
    const key = embeddingKey(this.embedder.id, text);
    if (this.textKeys.get(id)?.key === key && this.vectors.has(id)) return;
    this.textKeys.set(id, { key, text });
    this.vectors.delete(id);
    const known = this.byText.get(key);
    if (known === undefined) this.pending.add(id);
    else this.vectors.set(id, known);
  }

  /** Removes a document; true when it was there. */
  delete(id: string): boolean {
    this.textKeys.delete(id);
    this.vectors.delete(id);
    this.pending.delete(id);
    return this.keyword.delete(id);
  }

  /** Keyword search only (synchronous): see {@link SearchIndex.search}. */
  search(query: string, limit = 10, accept?: (name: string) => boolean): SearchHit[] {
    return this.keyword.search(query, limit, accept);
  }

  /** Computes the vectors of documents added or changed since the last call (cache first, then batches). */
  async prepare(options: HybridSearchCallOptions = {}): Promise<void> {
    while (this.embedder !== undefined && this.pending.size > 0) {
      // One embedding pass at a time; callers that arrive meanwhile wait for it, then re-check.
      this.embedding ??= this.embedPending(this.embedder, options.signal).finally(() => {
        this.embedding = undefined;
      });
      await this.embedding;
    }
  }

  /**
   * The best matches for `query`, best first: hybrid when an embedder was given, else the keyword
   * search. Scores are the mixed score (0 to 1).
   */
  async searchHybrid(
    query: string,
    limit = 10,
    accept?: (name: string) => boolean,
    options: HybridSearchCallOptions = {},
  ): Promise<SearchHit[]> {
    const embedder = this.embedder;
    if (embedder === undefined || limit <= 0) return this.keyword.search(query, limit, accept);
    await this.prepare(options);
    const text = query.slice(0, MAX_EMBEDDED_QUERY_CHARS);
    const [raw] = await embedder.embed([text], { signal: options.signal });
    if (raw === undefined) throw new RangeError("The embedder returned no vector for the query.");
    const queryVector = normalizeVector(raw, embedder.dimensions);
    const lexical = this.keyword.search(query, this.candidates, accept);
    const semantic = new TopK(this.candidates);
    for (const [id, vector] of this.vectors) {
      const cosine = dot(queryVector, vector);
      if (semantic.admits(id, cosine) && (accept === undefined || accept(id))) semantic.offer(id, cosine);
    }
    const best = lexical[0]?.score ?? 0;
    const keywordScores = new Map(lexical.map((hit) => [hit.name, best > 0 ? hit.score / best : 0]));
    const union = new Set([...keywordScores.keys(), ...semantic.sorted().map((hit) => hit.name)]);
    const top = new TopK(limit);
    const lexicalWeight = 1 - this.semanticWeight;
    for (const id of union) {
      const vector = this.vectors.get(id);
      const cosine = vector === undefined ? 0 : dot(queryVector, vector);
      top.offer(id, this.semanticWeight * cosine + lexicalWeight * (keywordScores.get(id) ?? 0));
    }
    return top.sorted();
  }

  /** The distinct texts of `batch` without a vector: the persistent cache is asked first. */
  private async missingTexts(batch: readonly string[], dimensions: number): Promise<Map<string, string>> {
    const missing = new Map<string, string>();
    for (const id of batch) {
      const entry = this.textKeys.get(id);
      if (entry === undefined || this.byText.has(entry.key) || missing.has(entry.key)) continue;
      const cached = await readCache(this.cache, entry.key);
      if (cached !== undefined && cached.length === dimensions) this.byText.set(entry.key, cached);
      else missing.set(entry.key, entry.text);
    }
    return missing;
  }

  private async embedPending(embedder: Embedder, signal: AbortSignal | undefined): Promise<void> {
    const batch = [...this.pending];
    const missing = await this.missingTexts(batch, embedder.dimensions);
    const keys = [...missing.keys()];
    const size = Math.max(1, embedder.batchSize ?? 64);
    for (let start = 0; start < keys.length; start += size) {
      signal?.throwIfAborted();
      const slice = keys.slice(start, start + size);
      const vectors = await embedder.embed(
        slice.map((key) => missing.get(key) as string),
        { signal },
      );
      if (vectors.length !== slice.length) {
        throw new RangeError(`The embedder returned ${vectors.length} vectors for ${slice.length} texts.`);
      }
      for (const [index, key] of slice.entries()) {
        const vector = normalizeVector(vectors[index] as ArrayLike<number>, embedder.dimensions);
        this.byText.set(key, vector);
        await writeCache(this.cache, key, vector);
      }
    }
    for (const id of batch) {
      const entry = this.textKeys.get(id);
      const vector = entry === undefined ? undefined : this.byText.get(entry.key);
      // A document changed meanwhile keeps waiting (its new text is another key).
      if (vector !== undefined && this.textKeys.get(id) === entry) {
        this.vectors.set(id, vector);
        this.pending.delete(id);
      } else if (entry === undefined) this.pending.delete(id);
    }
    // Texts no document uses any more are dropped from the in-process map.
    if (this.byText.size > 2 * this.textKeys.size + 64) {
      const used = new Set([...this.textKeys.values()].map((entry) => entry.key));
      for (const key of this.byText.keys()) if (!used.has(key)) this.byText.delete(key);
    }
  }
}

async function readCache(cache: EmbeddingCache | undefined, key: string): Promise<Float32Array | undefined> {
  if (cache === undefined) return undefined;
  try {
    return await cache.get(key);
  } catch {
    return undefined;
  }
}

async function writeCache(cache: EmbeddingCache | undefined, key: string, vector: Float32Array): Promise<void> {
  if (cache === undefined) return;
  try {
    await cache.set(key, vector);
  } catch {
    // The cache only saves work; a failed write costs one embedding at the next start.
  }
}

function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += (a[i] as number) * (b[i] as number);
  return sum;
}
