import { randomUUID } from "node:crypto";
import { describe, expect, it, onTestFinished } from "vitest";
import { postingOrderAndBoundFaults } from "./posting-invariants.test-util.js";
import { type SearchDocument, SearchIndex } from "./search-index.js";

const POOL = Array.from({ length: 200 }, (_, i) => `word${String.fromCharCode(97 + (i % 26))}${Math.floor(i / 26)}z`);

/** Private counters of the index, read by reflection (they are for tests, not its API). */
function held(index: SearchIndex): { ids: number; live: number; room: number } {
  return {
    ids: Reflect.get(index, "terms") as number,
    live: (Reflect.get(index, "termIds") as Map<string, number>).size,
    room: (Reflect.get(index, "postingStart") as Int32Array).length,
  };
}

describe("terms whose documents are all removed are freed (issue 18: churn with new words)", () => {
  it("keeps the vocabulary and the per-term arrays bounded through 100,000 register/remove cycles of tools with UUIDs in their names", () => {
    const index = new SearchIndex();
    for (let i = 0; i < 100; i++)
      index.set({ name: `github_${POOL[i % 200]}_${i}`, description: `Lists the ${POOL[(i * 7) % 200]} of a repository.` });
    index.search("repository");
    const before = held(index);
    for (let i = 0; i < 100_000; i++) {
      const name = `mcp_${randomUUID().replaceAll("-", "_")}_run_query`;
      index.set({ name, description: `Runs a query on ${POOL[i % 200]} for session ${randomUUID()}.` });
      index.delete(name);
      if (i % 10_000 === 0) index.search("run a query");
    }
    const after = held(index);
    // Each cycle brings about ten new words: 1,000,000 term ids without freeing.
    expect(after.live).toBeLessThanOrEqual(before.live + 200);
    expect(after.ids).toBeLessThan(5_000);
    expect(after.room).toBeLessThanOrEqual(8_192);
    expect(index.vocabularySize).toBeLessThan(5_000);
    // Control: the live tools are still found, the removed ones are not.
    expect(index.search("github repository", 3)).toHaveLength(3);
    expect(index.search("session run query", 3)).toEqual([]);
  }, 120_000);

  it("ranks as a fresh index while words die and come back and their ids are reused", () => {
    const before = Reflect.get(SearchIndex, "freeTermsMin");
    Reflect.set(SearchIndex, "freeTermsMin", 4);
    onTestFinished(() => {
      Reflect.set(SearchIndex, "freeTermsMin", before);
    });
    const index = new SearchIndex({ statisticsTolerance: 0 });
    const live = new Map<string, SearchDocument>();
    let freed = 0;
    for (let step = 0; step < 3_000; step++) {
      const key = `tool_${step % 40}`;
      if (step % 7 === 3) {
        index.delete(key);
        live.delete(key);
      } else {
        const document = {
          id: key,
          name: `${POOL[(step * 7) % 200]}_${POOL[(step * 13) % 200]}`,
          description: `${POOL[(step * 3) % 200]} and ${POOL[(step * 11) % 41]}`,
        };
        // Half the additions staged, written at the next search or removal.
        if (step % 2 === 0) index.set(document);
        else index.stage(document);
        live.set(key, document);
      }
      freed = Math.max(freed, (Reflect.get(index, "freeTerms") as number[]).length);
      if (step % 50 === 49) {
        const fresh = new SearchIndex({ statisticsTolerance: 0 });
        for (const document of live.values()) fresh.set(document);
        for (let q = 0; q < 5; q++) {
          const query = `${POOL[(step + q * 17) % 200]} ${POOL[(step * q + 5) % 200]} ${POOL[(q * 31) % 41]}`;
          expect(index.search(query, 50)).toEqual(fresh.search(query, 50));
        }
        expect(postingOrderAndBoundFaults(index).faults).toBe(0);
      }
    }
    // Control: ids were freed and reused on the way.
    expect(freed).toBeGreaterThan(0);
    expect(held(index).ids).toBeLessThan(POOL.length + 50);
  });
});
