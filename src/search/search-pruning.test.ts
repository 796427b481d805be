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

/**
 * 1,500 tools from a seed: enough for searches to close (a few hundred rarely do). Or a flat
 * catalog: every tool has 8 distinct words and a name of two, so every posting of a word has the
 * same weight (the bounds are tight, and scores tie often).
 */
function seededCatalog(seed: number, flat: boolean): SearchIndex {
  const index = new SearchIndex();
  let state = seed;
  const random = () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
  for (let key = 0; key < 1_500; key++) {
    if (flat) {
      const chosen = new Set<string>();
      while (chosen.size < 8) chosen.add(VOCABULARY[Math.floor(random() * 24)] as string);
      index.set({ id: `tool_${key}`, name: `tool_${key}`, description: [...chosen].join(" ") });
      continue;
    }
    const text = Array.from({ length: 5 + Math.floor(random() * 20) }, () => wordAt(random())).join(" ");
    index.set({ id: `tool_${key}`, name: `${wordAt(random())}_${wordAt(random())}_${key}`, description: text });
  }
  return index;
}

/**
 * Checks pruned searches for `words` against exhaustive scoring, with and without a filter; returns
 * how many of them checked a bound (a pass over the candidates).
 */
function searchesChecked(index: SearchIndex, words: number[], limit: number, keep: number): number {
  // Query words drawn as tools draw them (common words: long postings, lookups once closed), and
  // half of them drawn evenly (rare words score their few tools high: more searches close early).
  const texts = [
    words.map(wordAt).join(" "),
    words.map((pick, i) => (i % 2 === 0 ? wordAt(pick) : VOCABULARY[Math.floor(pick * VOCABULARY.length)])).join(" "),
  ];
  const accept = (key: string) => Number(key.slice(key.lastIndexOf("_") + 1)) % keep === 0;
  let checked = 0;
  for (const text of texts) {
    // biome-ignore lint/complexity/useLiteralKeys: a private counter, read by the test
    const before = index["candidatesRead"] as number;
    const pruned = index.search(text, limit);
    const prunedFiltered = index.search(text, limit, accept);
    // biome-ignore lint/complexity/useLiteralKeys: a private counter, read by the test
    if ((index["candidatesRead"] as number) > before) checked++;
    // A limit past the size never lets the search check: every tool is scored with every term.
    expect(pruned).toEqual(index.search(text, index.size + 1).slice(0, limit));
    expect(prunedFiltered).toEqual(index.search(text, index.size + 1, accept).slice(0, limit));
  }
  // A search leaves no score behind (the next one would start from it).
  // biome-ignore lint/complexity/useLiteralKeys: private state, read by the test
  expect((index["scores"] as Float64Array).every((score) => score === 0)).toBe(true);
  return checked;
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

  it("ranks as exhaustive scoring between additions, replacements and removals, with queries of up to 40 words", () => {
    const words = fc.array(fc.double({ min: 0, max: 0.999, noNaN: true }), { minLength: 1, maxLength: 25 });
    const step = fc.oneof(
      {
        weight: 5,
        arbitrary: fc.record({
          kind: fc.constant("set" as const),
          key: fc.integer({ min: 0, max: 1_700 }),
          name: fc.array(fc.double({ min: 0, max: 0.999, noNaN: true }), { minLength: 1, maxLength: 3 }),
          description: words,
        }),
      },
      { weight: 2, arbitrary: fc.record({ kind: fc.constant("delete" as const), key: fc.integer({ min: 0, max: 1_700 }) }) },
      {
        weight: 2,
        arbitrary: fc.record({
          kind: fc.constant("search" as const),
          words: fc.array(fc.double({ min: 0, max: 0.999, noNaN: true }), { minLength: 1, maxLength: 40 }),
          limit: fc.integer({ min: 1, max: 12 }),
          keep: fc.integer({ min: 1, max: 4 }),
        }),
      },
    );
    let checked = 0;
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1_000_000 }),
        fc.boolean(),
        fc.array(step, { minLength: 40, maxLength: 120, size: "max" }),
        (seed, flat, steps) => {
          const index = seededCatalog(seed, flat);
          for (const action of steps) {
            if (action.kind === "set") {
              index.set({
                id: `tool_${action.key}`,
                name: `${action.name.map(wordAt).join("_")}_${action.key}`,
                description: action.description.map(wordAt).join(" "),
              });
            } else if (action.kind === "delete") index.delete(`tool_${action.key}`);
            else if (index.size > 0) checked += searchesChecked(index, action.words, action.limit, action.keep);
          }
        },
      ),
      { numRuns: 30 },
    );
    // Not vacuous: searches did check (and most closed: the 5,000-tool test below counts skips).
    expect(checked).toBeGreaterThan(10);
  });

  it("reads each candidate once per check once closed (one pass drops and finds the next bound)", () => {
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
    index.search("warm");
    let read = 0;
    for (let q = 0; q < 40; q++) {
      const text = Array.from({ length: 3 + (q % 25) }, () => wordAt(random())).join(" ");
      // biome-ignore lint/complexity/useLiteralKeys: a private counter, read by the test
      const before = index["candidatesRead"] as number;
      const hits = index.search(text, 10);
      // biome-ignore lint/complexity/useLiteralKeys: a private counter, read by the test
      read += (index["candidatesRead"] as number) - before;
      expect(hits).toEqual(index.search(text, index.size + 1).slice(0, 10));
    }
    // Deterministic. A pass to find the k-th best and another to drop by it read 595,091
    // candidates on these 40 queries; one pass for both (and the last top k read first) 431,381.
    expect(read).toBeGreaterThan(0);
    expect(read).toBeLessThan(500_000);
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
