import { createRegistry, type Embedder, HybridSearch, SearchIndex, type SearchIndexOptions } from "../../src/index.js";
import { searchDocumentOf } from "../../src/registry/search-document.js";
import type { SearchDocument } from "../../src/search/search-index.js";
import { tokenize } from "../../src/search/tokenize.js";
import { Bm25Baseline } from "./bm25-baseline.js";
import type { RetrievalDataset } from "./datasets.js";
import { meanMetrics, type QueryMetrics, queryMetrics, recallAt } from "./metrics.js";

/** Quality of one method on one data set. */
export interface SearchQualityResult {
  readonly dataset: string;
  readonly role: RetrievalDataset["role"];
  readonly method: string;
  /** "baseline", "default", "hybrid", or "variant" (a configuration tried, not the default). */
  readonly kind: "baseline" | "default" | "hybrid" | "variant";
  readonly queries: number;
  readonly metrics: QueryMetrics;
  /** Recall@10 over the (query, gold tool) pairs that share no content word. */
  readonly zeroOverlapRecallAt10: number;
  /** How many such pairs the set has, and their share of all pairs. */
  readonly zeroOverlapPairs: number;
  readonly zeroOverlapShare: number;
}

/** One keyword configuration the bench evaluates. */
export interface RankerConfiguration {
  readonly name: string;
  readonly options: SearchIndexOptions;
}

const b = (weight: number, lengthNormalization: number) => ({ weight, lengthNormalization });

/**
 * Every keyword configuration tried, reported on every set (the default first). The default was
 * picked on the development set; the others show what each choice is worth.
 */
export const CONFIGURATIONS: readonly RankerConfiguration[] = [
  {
    name: "default BM25F (name 5, server 3, title 2, description 1/b .9, parameters 1/b .75; k1 4; related words .4; URLs and paths as values)",
    options: {},
  },
  {
    name: "previous default (description b .5, parameters b .5; k1 2; related words .3; URLs and paths as plain words)",
    options: { k1: 2, relatedWeight: 0.3, queryValues: false, fields: { description: b(1, 0.5), parameters: b(1, 0.5) } },
  },
  {
    name: "older default fields (name 3/.3, title 2/.3, tags 1.5/.3, description 1/.75, parameters .5/.75; k1 1.2; no server)",
    options: {
      k1: 1.2,
      fields: {
        name: b(3, 0.3),
        server: b(0, 0),
        title: b(2, 0.3),
        tags: b(1.5, 0.3),
        description: b(1, 0.75),
        parameters: b(0.5, 0.75),
      },
    },
  },
  { name: "default, k1 2", options: { k1: 2 } },
  { name: "default, k1 8", options: { k1: 8 } },
  { name: "default, name weight 3", options: { fields: { name: b(3, 0.75) } } },
  { name: "default, name weight 8", options: { fields: { name: b(8, 0.75) } } },
  { name: "default, no server field", options: { fields: { server: b(0, 0) } } },
  { name: "default, title weight 0", options: { fields: { title: b(0, 0) } } },
  { name: "default, title weight 5", options: { fields: { title: b(5, 0.75) } } },
  { name: "default, parameters weight 0.5", options: { fields: { parameters: b(0.5, 0.75) } } },
  { name: "default, parameters weight 0", options: { fields: { parameters: b(0, 0) } } },
  { name: "default, description b .5", options: { fields: { description: b(1, 0.5) } } },
  { name: "default, description b .75", options: { fields: { description: b(1, 0.75) } } },
  { name: "default, description b 1", options: { fields: { description: b(1, 1) } } },
  { name: "default, no compound splitting", options: { splitCompounds: false } },
  { name: "default, URLs and paths read as plain words (queryValues false)", options: { queryValues: false } },
  { name: "default, no related words (relatedWeight 0)", options: { relatedWeight: 0 } },
  { name: "default, related words at 0.2", options: { relatedWeight: 0.2 } },
  { name: "default, related words at 0.4", options: { relatedWeight: 0.4 } },
  { name: "default, related words at 0.8", options: { relatedWeight: 0.8 } },
];

/** All the words the catalog sees of a tool, in one field, for the plain BM25 floor. */
export function plainText(document: SearchDocument): string {
  return [
    document.name,
    document.title ?? "",
    document.description,
    ...(document.parameters ?? []).flatMap((parameter) => [parameter.name, parameter.description ?? ""]),
  ].join(" ");
}

/** A data set registered as `connectMcpServers` would, with its search documents. */
export interface Prepared {
  readonly dataset: RetrievalDataset;
  readonly documents: readonly SearchDocument[];
  /** Registered name → data set id. */
  readonly idOf: ReadonlyMap<string, string>;
  /** Per query: the gold ids that share no content word with it. */
  readonly zeroOverlap: readonly (readonly string[])[];
}

/** Registers a data set's tools and reads back their search documents. */
export function prepare(dataset: RetrievalDataset): Prepared {
  const registry = createRegistry({ tools: dataset.tools.map((tool) => tool.definition) });
  const idOf = new Map<string, string>();
  const documents: SearchDocument[] = [];
  const termsOf = new Map<string, Set<string>>();
  for (const tool of dataset.tools) {
    const descriptor = registry.list().find((entry) => entry.name === tool.definition.name);
    if (descriptor === undefined) throw new Error(`Tool ${tool.id} did not register.`);
    const document = searchDocumentOf(descriptor);
    documents.push(document);
    idOf.set(descriptor.name, tool.id);
    termsOf.set(tool.id, new Set(tokenize(plainText(document).replace(/[_:-]+/g, " "))));
  }
  const zeroOverlap = dataset.queries.map((query) => {
    const words = tokenize(query.query);
    return query.gold.filter((id) => !words.some((word) => termsOf.get(id)?.has(word)));
  });
  return { dataset, documents, idOf, zeroOverlap };
}

function score(
  prepared: Prepared,
  method: string,
  kind: SearchQualityResult["kind"],
  ranked: readonly (readonly string[])[],
): SearchQualityResult {
  const { dataset, zeroOverlap } = prepared;
  const metrics = meanMetrics(dataset.queries.map((query, index) => queryMetrics(ranked[index] ?? [], query.gold)));
  let pairs = 0;
  let found = 0;
  let allPairs = 0;
  dataset.queries.forEach((query, index) => {
    allPairs += query.gold.length;
    const missing = zeroOverlap[index] ?? [];
    pairs += missing.length;
    found += recallAt(ranked[index] ?? [], missing, 10) * missing.length;
  });
  return {
    dataset: dataset.name,
    role: dataset.role,
    method,
    kind,
    queries: dataset.queries.length,
    metrics,
    zeroOverlapRecallAt10: pairs === 0 ? 0 : found / pairs,
    zeroOverlapPairs: pairs,
    zeroOverlapShare: allPairs === 0 ? 0 : pairs / allPairs,
  };
}

/**
 * Plain BM25, every keyword configuration and (with an embedder) the hybrid, on every data set,
 * side by side.
 */
export async function measureSearchQuality(
  datasets: readonly RetrievalDataset[],
  embedder?: Embedder,
  configurations: readonly RankerConfiguration[] = CONFIGURATIONS,
): Promise<SearchQualityResult[]> {
  const results: SearchQualityResult[] = [];
  for (const dataset of datasets) {
    const prepared = prepare(dataset);
    const toIds = (names: readonly string[]) => names.map((name) => prepared.idOf.get(name) ?? name);
    const plain = new Bm25Baseline(prepared.documents.map((document) => ({ name: document.name, text: plainText(document) })));
    results.push(
      score(
        prepared,
        "plain BM25 (all text in one field, k1 1.2, b .75)",
        "baseline",
        dataset.queries.map((query) => toIds(plain.search(query.query, 10))),
      ),
    );
    configurations.forEach((configuration, index) => {
      const search = new SearchIndex(configuration.options);
      for (const document of prepared.documents) search.set(document);
      const ranked = dataset.queries.map((query) => toIds(search.search(query.query, 10).map((hit) => hit.name)));
      results.push(score(prepared, configuration.name, index === 0 ? "default" : "variant", ranked));
    });
    if (embedder !== undefined) {
      const hybrid = new HybridSearch({ embedder });
      for (const document of prepared.documents) hybrid.set(document);
      const ranked: string[][] = [];
      for (const query of dataset.queries)
        ranked.push(toIds((await hybrid.searchHybrid(query.query, 10)).map((hit) => hit.name)));
      results.push(score(prepared, `hybrid: 0.7 × cosine + 0.3 × default (${embedder.id})`, "hybrid", ranked));
      for (const semanticWeight of [0.2, 0.5, 0.8]) {
        const variant = new HybridSearch({ embedder, semanticWeight });
        for (const document of prepared.documents) variant.set(document);
        const variantRanked: string[][] = [];
        for (const query of dataset.queries)
          variantRanked.push(toIds((await variant.searchHybrid(query.query, 10)).map((hit) => hit.name)));
        results.push(score(prepared, `hybrid, semanticWeight ${semanticWeight}`, "variant", variantRanked));
      }
    }
  }
  return results;
}
export { metaToolDefinition } from "./datasets.js";
