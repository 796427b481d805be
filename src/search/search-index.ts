import type { SearchHit } from "../tool/tool-context.js";
import { tokenize } from "./tokenize.js";
import { TopK } from "./top-k.js";

/** What the index knows of a tool. */
export interface SearchDocument {
  /** The document's key in the index, and the `name` of its hits. @defaultValue `name` */
  readonly id?: string;
  /** The tool name; split on `_`, `-` and case changes. */
  readonly name: string;
  /** The description. */
  readonly description: string;
  /** A human title (MCP `annotations.title`). */
  readonly title?: string | undefined;
  /** Tags, e.g. `["git", "mcp_server:github"]`. */
  readonly tags?: readonly string[];
  /** Parameter names and descriptions, from the input schema. */
  readonly parameters?: readonly { readonly name: string; readonly description?: string | undefined }[];
}

/** Weight and length normalisation of one field in BM25F. */
export interface FieldWeight {
  /** How much one occurrence in this field counts. */
  readonly weight: number;
  /** Length normalisation, 0 (none) to 1 (full). */
  readonly lengthNormalization: number;
}

/** The fields of a {@link SearchDocument}. */
export type SearchField = "name" | "title" | "tags" | "description" | "parameters";

/** Options of a {@link SearchIndex}. */
export interface SearchIndexOptions {
  /** Per-field weights. Names count most: a word in a name says what the tool is. */
  readonly fields?: Partial<Record<SearchField, FieldWeight>>;
  /**
   * BM25 term-frequency saturation.
   * @defaultValue 1.2
   */
  readonly k1?: number;
  /**
   * Weight of index words that a query word is a prefix of ("calend" → "calendar"), 0 to turn off.
   * @defaultValue 0.3
   */
  readonly prefixWeight?: number;
}

const DEFAULT_FIELDS: Record<SearchField, FieldWeight> = {
  name: { weight: 3, lengthNormalization: 0.3 },
  title: { weight: 2, lengthNormalization: 0.3 },
  tags: { weight: 1.5, lengthNormalization: 0.3 },
  description: { weight: 1, lengthNormalization: 0.75 },
  parameters: { weight: 0.5, lengthNormalization: 0.75 },
};
const FIELDS = Object.keys(DEFAULT_FIELDS) as SearchField[];
const MIN_PREFIX_LENGTH = 4;
const MAX_PREFIX_EXPANSIONS = 8;

interface IndexedDocument {
  readonly name: string;
  /** Term ids per field. */
  readonly fieldTerms: Record<SearchField, Int32Array>;
}

/**
 * The postings of every term in compressed-row form: term `t`'s documents are
 * `documents[offsets[t] .. offsets[t + 1])`, each with its saturated BM25F weight.
 */
interface BuiltIndex {
  readonly names: string[];
  readonly offsets: Int32Array;
  readonly documents: Int32Array;
  readonly saturated: Float32Array;
  /** Terms that occur in some document, sorted, for prefix expansion. */
  readonly vocabulary: string[];
  readonly scores: Float64Array;
  /** Scratch list of the documents a query touched, reused across queries. */
  readonly touched: number[];
}

/**
 * A BM25F keyword index over tool documents. Changes are cheap (documents are tokenized once, to
 * term ids); the postings are rebuilt lazily on the first search after a change.
 */
export class SearchIndex {
  private readonly fields: Record<SearchField, FieldWeight>;
  private readonly k1: number;
  private readonly prefixWeight: number;
  private readonly documents = new Map<string, IndexedDocument>();
  private readonly termIds = new Map<string, number>();
  private readonly terms: string[] = [];
  private built: BuiltIndex | undefined;

  constructor(options: SearchIndexOptions = {}) {
    this.fields = { ...DEFAULT_FIELDS, ...options.fields };
    this.k1 = options.k1 ?? 1.2;
    this.prefixWeight = options.prefixWeight ?? 0.3;
  }

  /** The number of documents. */
  get size(): number {
    return this.documents.size;
  }

  /** Adds or replaces a document. */
  set(document: SearchDocument): void {
    const words = tokenizeDocument(document);
    const fieldTerms = {} as Record<SearchField, Int32Array>;
    for (const field of FIELDS) fieldTerms[field] = Int32Array.from(words[field], (term) => this.termId(term));
    const key = document.id ?? document.name;
    this.documents.set(key, { name: key, fieldTerms });
    this.built = undefined;
  }

  /** Removes a document; true when it was there. */
  delete(name: string): boolean {
    const removed = this.documents.delete(name);
    if (removed) this.built = undefined;
    return removed;
  }

  /** Builds the postings now rather than on the first search. */
  build(): void {
    this.built ??= this.buildPostings();
  }

  /**
   * The best matches for `query`, best first. `accept` limits the candidates (e.g. to what a
   * run may activate) before the top `limit` are taken.
   */
  search(query: string, limit = 10, accept?: (name: string) => boolean): SearchHit[] {
    this.build();
    const built = this.built;
    if (built === undefined || limit <= 0) return [];
    const touched = built.touched;
    touched.length = 0;
    for (const term of new Set(tokenize(query))) {
      this.accumulate(built, this.termIds.get(term), 1, touched);
      if (this.prefixWeight > 0 && term.length >= MIN_PREFIX_LENGTH) {
        for (const longer of prefixExpansions(built.vocabulary, term)) {
          this.accumulate(built, this.termIds.get(longer), this.prefixWeight, touched);
        }
      }
    }
    const { names, scores } = built;
    const top = new TopK(limit);
    for (const index of touched) {
      const score = scores[index] as number;
      scores[index] = 0;
      const name = names[index] as string;
      // The filter (a run's visibility rules) runs only for candidates that would make the top k.
      if (top.admits(name, score) && (accept === undefined || accept(name))) top.offer(name, score);
    }
    return top.sorted();
  }

  private termId(term: string): number {
    let id = this.termIds.get(term);
    if (id === undefined) {
      id = this.terms.length;
      this.terms.push(term);
      this.termIds.set(term, id);
    }
    return id;
  }

  private accumulate(built: BuiltIndex, termId: number | undefined, weight: number, touched: number[]): void {
    if (termId === undefined || termId + 1 >= built.offsets.length) return;
    const start = built.offsets[termId] as number;
    const end = built.offsets[termId + 1] as number;
    if (start === end) return;
    const { documents, saturated, scores } = built;
    const idf = Math.log(1 + (scores.length - (end - start) + 0.5) / (end - start + 0.5)) * weight;
    for (let i = start; i < end; i++) {
      const document = documents[i] as number;
      if (scores[document] === 0) touched.push(document);
      scores[document] = (scores[document] as number) + idf * (saturated[i] as number);
    }
  }

  private buildPostings(): BuiltIndex {
    const documents = [...this.documents.values()];
    const termCount = this.terms.length;
    const norms = FIELDS.map((field) => {
      let total = 0;
      for (const document of documents) total += document.fieldTerms[field].length;
      const average = documents.length === 0 ? 1 : Math.max(total / documents.length, 1);
      const { weight, lengthNormalization: b } = this.fields[field];
      return { field, weight, b, average };
    });
    // Pass 1: each document's weighted term frequencies, as (term, weight) pairs, and the document frequencies.
    const scratch = new Float64Array(termCount);
    const frequency = new Int32Array(termCount + 1);
    const pairTerms: number[] = [];
    const pairWeights: number[] = [];
    const pairStarts = new Int32Array(documents.length + 1);
    const seen: number[] = [];
    documents.forEach((document, index) => {
      pairStarts[index] = pairTerms.length;
      for (const { field, weight, b, average } of norms) {
        const terms = document.fieldTerms[field];
        if (terms.length === 0) continue;
        const increment = weight / (1 - b + (b * terms.length) / average);
        for (const term of terms) {
          if (scratch[term] === 0) seen.push(term);
          scratch[term] = (scratch[term] as number) + increment;
        }
      }
      for (const term of seen) {
        const tf = scratch[term] as number;
        pairTerms.push(term);
        pairWeights.push(tf / (this.k1 + tf));
        frequency[term] = (frequency[term] as number) + 1;
        scratch[term] = 0;
      }
      seen.length = 0;
    });
    pairStarts[documents.length] = pairTerms.length;
    // Pass 2: lay the pairs out per term.
    const offsets = new Int32Array(termCount + 1);
    for (let term = 0; term < termCount; term++) offsets[term + 1] = (offsets[term] as number) + (frequency[term] as number);
    const cursor = offsets.slice(0, termCount);
    const postingDocuments = new Int32Array(pairTerms.length);
    const saturated = new Float32Array(pairTerms.length);
    for (let index = 0; index < documents.length; index++) {
      for (let pair = pairStarts[index] as number; pair < (pairStarts[index + 1] as number); pair++) {
        const term = pairTerms[pair] as number;
        const slot = cursor[term] as number;
        cursor[term] = slot + 1;
        postingDocuments[slot] = index;
        saturated[slot] = pairWeights[pair] as number;
      }
    }
    const vocabulary = this.terms.filter((_, term) => (frequency[term] as number) > 0).sort();
    return {
      names: documents.map((document) => document.name),
      offsets,
      documents: postingDocuments,
      saturated,
      vocabulary,
      scores: new Float64Array(documents.length),
      touched: [],
    };
  }
}

function tokenizeDocument(document: SearchDocument): Record<SearchField, string[]> {
  const parameters = document.parameters ?? [];
  return {
    name: tokenize(document.name.replace(/[_-]+/g, " "), { keepStopWords: true }),
    title: document.title === undefined ? [] : tokenize(document.title, { keepStopWords: true }),
    tags: (document.tags ?? []).flatMap((tag) => tokenize(tag.replace(/[_:-]+/g, " "), { keepStopWords: true })),
    description: tokenize(document.description),
    parameters: parameters.flatMap((parameter) => [
      ...tokenize(parameter.name.replace(/[_-]+/g, " "), { keepStopWords: true }),
      ...tokenize(parameter.description ?? ""),
    ]),
  };
}

/** Words of the sorted vocabulary that start with `prefix` (not `prefix` itself). */
function prefixExpansions(vocabulary: readonly string[], prefix: string): string[] {
  let low = 0;
  let high = vocabulary.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((vocabulary[middle] as string) < prefix) low = middle + 1;
    else high = middle;
  }
  const out: string[] = [];
  for (let i = low; i < vocabulary.length && out.length < MAX_PREFIX_EXPANSIONS; i++) {
    const word = vocabulary[i] as string;
    if (!word.startsWith(prefix)) break;
    if (word !== prefix) out.push(word);
  }
  return out;
}
