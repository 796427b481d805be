import fc from "fast-check";
import { describe, expect, it, onTestFinished } from "vitest";
import { postingOrderAndBoundFaults } from "./posting-invariants.test-util.js";
import { type SearchDocument, SearchIndex } from "./search-index.js";

const WORDS = Array.from({ length: 40 }, (_, i) => `term${String.fromCharCode(97 + (i % 26))}${Math.floor(i / 26)}q`);

/** A Zipf-like word: a few in most documents (long postings that outgrow their room), most rare. */
function wordAt(pick: number): string {
  return WORDS[Math.floor(WORDS.length * pick * pick)] as string;
}

const pick = fc.double({ min: 0, max: 0.999, noNaN: true });
const documentOf = fc.record({
  name: fc.array(pick, { minLength: 1, maxLength: 3 }),
  description: fc.array(pick, { minLength: 0, maxLength: 30 }),
  parameter: fc.option(pick, { nil: undefined }),
});
/** One step: add or replace the document with this key, remove it, or search (weights become current). */
const step = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({ kind: fc.constant("set" as const), key: fc.integer({ min: 0, max: 250 }), document: documentOf }),
  },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("delete" as const), key: fc.integer({ min: 0, max: 250 }) }) },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant("search" as const), query: fc.array(pick, { minLength: 1, maxLength: 4 }) }),
  },
);

function toDocument(
  key: number,
  document: { name: number[]; description: number[]; parameter: number | undefined },
): SearchDocument {
  return {
    id: `tool_${key}`,
    name: `${document.name.map(wordAt).join("_")}_${key}`,
    description: document.description.map(wordAt).join(" "),
    parameters: document.parameter === undefined ? [] : [{ name: wordAt(document.parameter), description: "The value" }],
  };
}

describe("the search index under interleaved additions, replacements and removals", () => {
  it("ranks exactly as an index built fresh from the surviving documents, and pruned as exhaustive (a store that starts tiny: postings move and compact all the time)", () => {
    // Blocks of 4 postings, windows of 32 slots, renumbering after 16 removals, too.
    // Commits of 8 staged postings or more compact first; dead terms are freed 4 at a time.
    const small = { initialStore: 8, blockShift: 2, windowSlots: 32, renumberMin: 16, commitCompactMin: 8, freeTermsMin: 4 };
    const before = Object.keys(small).map((name) => [name, Reflect.get(SearchIndex, name)] as const);
    for (const [name, value] of Object.entries(small)) Reflect.set(SearchIndex, name, value);
    onTestFinished(() => {
      for (const [name, value] of before) Reflect.set(SearchIndex, name, value);
    });
    fc.assert(
      fc.property(
        fc.array(step, { minLength: 50, maxLength: 700, size: "max" }),
        fc.array(pick, { minLength: 1, maxLength: 12 }),
        (steps, words) => {
          const incremental = new SearchIndex({ statisticsTolerance: 0 });
          // Weights never refreshed after the first search: block bounds kept by moves, purges
          // and renumbering alone (a refresh recomputes them all and would hide a stale one).
          const stale = new SearchIndex({ statisticsTolerance: Number.POSITIVE_INFINITY });
          // Every addition staged (written at the next search, or removal of a staged document).
          const staged = new SearchIndex({ statisticsTolerance: 0 });
          const live = new Map<string, SearchDocument>();
          for (const action of steps) {
            if (action.kind === "set") {
              const document = toDocument(action.key, action.document);
              incremental.set(document);
              stale.set(document);
              staged.stage(document);
              // Now and then part of a commit (about 7 postings), as background slices do.
              if (action.key % 5 === 0) staged.commitStaged(7);
              // A replaced document keeps its place in the map: the fresh index sees the final text.
              live.set(document.id as string, document);
            } else if (action.kind === "delete") {
              stale.delete(`tool_${action.key}`);
              staged.delete(`tool_${action.key}`);
              expect(incremental.delete(`tool_${action.key}`)).toBe(live.delete(`tool_${action.key}`));
            } else {
              incremental.search(action.query.map(wordAt).join(" "));
              stale.search(action.query.map(wordAt).join(" "));
              staged.search(action.query.map(wordAt).join(" "));
            }
          }
          const fresh = new SearchIndex({ statisticsTolerance: 0 });
          for (const document of live.values()) fresh.set(document);
          expect(incremental.size).toBe(fresh.size);
          expect(incremental.postingCount).toBe(fresh.postingCount);
          const text = words.map(wordAt).join(" ");
          const all = fresh.search(text, fresh.size + 1);
          expect(incremental.search(text, fresh.size + 1)).toEqual(all);
          for (const limit of [1, 3, 10]) expect(incremental.search(text, limit)).toEqual(all.slice(0, limit));
          expect(staged.postingCount).toBe(fresh.postingCount);
          expect(staged.search(text, fresh.size + 1)).toEqual(all);
          for (const limit of [1, 3, 10]) expect(staged.search(text, limit)).toEqual(all.slice(0, limit));
          expect(postingOrderAndBoundFaults(staged).faults).toBe(0);
          expect(postingOrderAndBoundFaults(incremental).faults).toBe(0);
          expect(postingOrderAndBoundFaults(stale).faults).toBe(0);
          const staleAll = stale.search(text, stale.size + 1);
          for (const limit of [1, 3, 10]) expect(stale.search(text, limit)).toEqual(staleAll.slice(0, limit));
        },
      ),
      { numRuns: 25 },
    );
  });

  it("moves and compacts postings as terms outgrow their room, and keeps every posting (control: the counts)", () => {
    const index = new SearchIndex();
    // 6,000 documents of 8 words: 48,000+ postings, far past the store's first size.
    for (let i = 0; i < 6_000; i++) {
      index.set({
        name: `tool_${i}`,
        description: Array.from({ length: 8 }, (_, w) => WORDS[(i * 7 + w * 13) % WORDS.length]).join(" "),
      });
    }
    const postings = index.postingCount;
    expect(postings).toBeGreaterThan(48_000);
    for (let i = 0; i < 6_000; i += 2) index.delete(`tool_${i}`);
    expect(index.postingCount).toBeLessThan(postings * 0.6);
    // Every surviving document holding a word is found, and no removed one, for every word.
    for (const [w, word] of WORDS.entries()) {
      const expected = Array.from({ length: 3_000 }, (_, k) => 2 * k + 1)
        .filter((i) => Array.from({ length: 8 }, (_, n) => (i * 7 + n * 13) % WORDS.length).includes(w))
        .map((i) => `tool_${i}`);
      expect(
        index
          .search(word, 6_000)
          .map((hit) => hit.name)
          .sort(),
      ).toEqual(expected.sort());
    }
  });
});
