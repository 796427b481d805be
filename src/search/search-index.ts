import type { SearchHit } from "../tool/tool-context.js";
import { tokenize } from "./tokenize.js";
import { TopK } from "./top-k.js";

/** What the index knows of a tool. */
export interface SearchDocument {
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
  readonly fieldTerms: Record<SearchField, string[]>;
}

interface Postings {
  readonly documents: Int32Array;
  readonly saturated: Float32Array;
}

/**
 * A BM25F keyword index over tool documents. Changes are cheap (documents are tokenized once);
 * the postings are rebuilt lazily on the first search after a change.
 */
export class SearchIndex {
  private readonly fields: Record<SearchField, FieldWeight>;
  private readonly k1: number;
  private readonly prefixWeight: number;
  private readonly documents = new Map<string, IndexedDocument>();
  private built: { names: string[]; postings: Map<string, Postings>; vocabulary: string[]; scores: Float64Array } | undefined;

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
    this.documents.set(document.name, { name: document.name, fieldTerms: tokenizeDocument(document) });
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
    const { names, postings, scores } = built;
    const touched: number[] = [];
    const queryTerms = new Set(tokenize(query));
    for (const term of queryTerms) {
      this.accumulate(postings.get(term), 1, scores, touched);
      if (this.prefixWeight > 0 && term.length >= MIN_PREFIX_LENGTH) {
        for (const longer of prefixExpansions(built.vocabulary, term)) {
          this.accumulate(postings.get(longer), this.prefixWeight, scores, touched);
        }
      }
    }
    const top = new TopK(limit);
    for (const index of touched) {
      const score = scores[index] as number;
      scores[index] = 0;
      const name = names[index] as string;
      if (accept === undefined || accept(name)) top.offer(name, score);
    }
    return top.sorted();
  }

  private accumulate(list: Postings | undefined, weight: number, scores: Float64Array, touched: number[]): void {
    if (list === undefined) return;
    const documentCount = scores.length;
    const frequency = list.documents.length;
    const idf = Math.log(1 + (documentCount - frequency + 0.5) / (frequency + 0.5)) * weight;
    const { documents, saturated } = list;
    for (let i = 0; i < documents.length; i++) {
      const document = documents[i] as number;
      if (scores[document] === 0) touched.push(document);
      scores[document] = (scores[document] as number) + idf * (saturated[i] as number);
    }
  }

  private buildPostings(): NonNullable<SearchIndex["built"]> {
    const documents = [...this.documents.values()];
    const averageLength = {} as Record<SearchField, number>;
    for (const field of FIELDS) {
      let total = 0;
      for (const document of documents) total += document.fieldTerms[field].length;
      averageLength[field] = documents.length === 0 ? 1 : Math.max(total / documents.length, 1);
    }
    const lists = new Map<string, { documents: number[]; weights: number[] }>();
    documents.forEach((document, index) => {
      const weighted = new Map<string, number>();
      for (const field of FIELDS) {
        const terms = document.fieldTerms[field];
        if (terms.length === 0) continue;
        const { weight, lengthNormalization: b } = this.fields[field];
        const norm = 1 - b + (b * terms.length) / averageLength[field];
        const increment = weight / norm;
        for (const term of terms) weighted.set(term, (weighted.get(term) ?? 0) + increment);
      }
      for (const [term, frequency] of weighted) {
        let list = lists.get(term);
        if (list === undefined) {
          list = { documents: [], weights: [] };
          lists.set(term, list);
        }
        list.documents.push(index);
        list.weights.push(frequency / (this.k1 + frequency));
      }
    });
    const postings = new Map<string, Postings>();
    for (const [term, list] of lists) {
      postings.set(term, { documents: Int32Array.from(list.documents), saturated: Float32Array.from(list.weights) });
    }
    return {
      names: documents.map((document) => document.name),
      postings,
      vocabulary: [...postings.keys()].sort(),
      scores: new Float64Array(documents.length),
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
