/**
 * `search.candidates: Infinity` means every tool is a candidate of both halves of the hybrid
 * search: it was refused (a whole number was required), though the code always handled it. Now
 * accepted and documented; the control: its ranking equals the one with as many candidates as
 * there are tools, and a bad value (NaN, 0, 1.5) is still refused.
 */
import { ConfigurationError, type Embedder, HybridSearch } from "agent-tool-catalog";
import { describe, expect, it } from "vitest";

/** A bag-of-letters embedder: deterministic, and different from the keyword half's ranking. */
const embedder: Embedder = {
  id: "letters-26",
  dimensions: 26,
  embed: async (texts) =>
    texts.map((text) => {
      const vector = new Array<number>(26).fill(0);
      for (const char of text.toLowerCase()) {
        const code = char.charCodeAt(0) - 97;
        if (code >= 0 && code < 26) vector[code] = (vector[code] ?? 0) + 1;
      }
      return vector;
    }),
};

const names = Array.from({ length: 60 }, (_, index) => `tool_${index}`);

async function ranked(candidates: number): Promise<string[]> {
  const search = new HybridSearch({ embedder, candidates });
  for (const [index, name] of names.entries()) {
    search.set({ name, description: `Handles ${index % 3 === 0 ? "email messages" : "calendar events"} number ${index}` });
  }
  return (await search.searchHybrid("send an email", 60)).map((hit) => hit.name);
}

describe("search candidates: Infinity means every tool", () => {
  it("ranks as with as many candidates as tools, and differently from a small pool", async () => {
    const all = await ranked(Number.POSITIVE_INFINITY);
    expect(all).toHaveLength(60);
    expect(all).toEqual(await ranked(names.length));
    expect(await ranked(2)).not.toEqual(all);
  });

  it("NaN, 0 and fractions are still refused", () => {
    for (const candidates of [Number.NaN, 0, 1.5, Number.NEGATIVE_INFINITY]) {
      expect(() => new HybridSearch({ embedder, candidates })).toThrow(ConfigurationError);
    }
  });
});
