import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SearchIndex } from "./search-index.js";

const VOCABULARY = Array.from({ length: 60 }, (_, i) => `word${String.fromCharCode(97 + (i % 26))}${Math.floor(i / 26)}x`);

/** A Zipf-like word: a few words in most tools (long postings), most words rare. */
function wordAt(pick: number): string {
  return VOCABULARY[Math.floor(VOCABULARY.length * pick * pick)] as string;
}

const catalog = fc.array(
  fc.record({
    name: fc.array(fc.double({ min: 0, max: 0.999, noNaN: true }), { minLength: 1, maxLength: 3 }),
    description: fc.array(fc.double({ min: 0, max: 0.999, noNaN: true }), { minLength: 1, maxLength: 25 }),
  }),
  { minLength: 1, maxLength: 400 },
);
const query = fc.array(fc.double({ min: 0, max: 0.999, noNaN: true }), { minLength: 1, maxLength: 30 });

/** The exhaustive ranking: every tool scored with every query term, the top `limit` of all. */
function exhaustive(index: SearchIndex, text: string, limit: number, accept?: (name: string) => boolean) {
  return index.search(text, index.size, accept).slice(0, limit);
}

function build(tools: { name: number[]; description: number[] }[]): SearchIndex {
  const index = new SearchIndex();
  tools.forEach((tool, i) => {
    index.set({ name: `${tool.name.map(wordAt).join("_")}_${i}`, description: tool.description.map(wordAt).join(" ") });
  });
  return index;
}

describe("pruned search (MaxScore, candidates dropped, postings looked up) ranks as exhaustive scoring", () => {
  it("gives the same top k, scores to the last bit, on random catalogs, queries, limits and filters", () => {
    fc.assert(
      fc.property(
        catalog,
        query,
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 1, max: 4 }),
        (tools, words, limit, keep) => {
          const index = build(tools);
          const text = words.map(wordAt).join(" ");
          expect(index.search(text, limit)).toEqual(exhaustive(index, text, limit));
          const accept = (name: string) => Number(name.slice(name.lastIndexOf("_") + 1)) % keep === 0;
          expect(index.search(text, limit, accept)).toEqual(exhaustive(index, text, limit, accept));
        },
      ),
      { numRuns: 150 },
    );
  });

  it("prunes on a large catalog (the comparison above is not vacuous) and still ranks exhaustively", () => {
    const index = new SearchIndex();
    let state = 18;
    const random = () => {
      state = (state * 1103515245 + 12345) % 2147483648;
      return state / 2147483648;
    };
    for (let i = 0; i < 5_000; i++) {
      const words = Array.from({ length: 20 }, () => wordAt(random())).join(" ");
      index.set({ name: `${wordAt(random())}_${wordAt(random())}_${i}`, description: words });
    }
    for (let q = 0; q < 40; q++) {
      const text = Array.from({ length: 3 + (q % 25) }, () => wordAt(random())).join(" ");
      expect(index.search(text, 10)).toEqual(exhaustive(index, text, 10));
    }
    // biome-ignore lint/complexity/useLiteralKeys: a private counter, read by the test
    expect(index["postingsSkipped"]).toBeGreaterThan(0);
  });

  it("lists a tool once when a field weighted 0 holds a query word (it adds nothing and touches nothing)", () => {
    const index = new SearchIndex({ fields: { description: { weight: 0, lengthNormalization: 0 } } });
    index.set({ name: "alpha_tool", description: "zeta" });
    index.set({ name: "beta_tool", description: "zeta alpha" });
    const hits = index.search("zeta alpha", 10);
    expect(hits.map((hit) => hit.name)).toEqual(["alpha_tool"]);
    // Control: with the field weighted, both tools match, each once.
    const weighted = new SearchIndex();
    weighted.set({ name: "alpha_tool", description: "zeta" });
    weighted.set({ name: "beta_tool", description: "zeta alpha" });
    expect(
      weighted
        .search("zeta alpha", 10)
        .map((hit) => hit.name)
        .sort(),
    ).toEqual(["alpha_tool", "beta_tool"]);
  });
});
