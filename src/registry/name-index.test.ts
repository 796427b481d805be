import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { NameIndex } from "./name-index.js";

/** What `near` must return: every name ranked by shared trigrams, over postings short enough to use. */
function trigrams(name: string): Set<string> {
  const padded = `\u0001${name.toLowerCase()}\u0001`;
  const out = new Set<string>();
  for (let i = 0; i + 3 <= padded.length; i++) out.add(padded.slice(i, i + 3));
  return out;
}

function bruteNear(names: readonly string[], target: string, limit: number): string[] {
  const byGram = new Map<string, string[]>();
  for (const name of names) {
    for (const gram of trigrams(name)) {
      const holders = byGram.get(gram);
      if (holders === undefined) byGram.set(gram, [name]);
      else holders.push(name);
    }
  }
  const shared = new Map<string, number>();
  for (const gram of trigrams(target)) {
    const holders = byGram.get(gram) ?? [];
    if (holders.length > 2000) continue;
    for (const name of holders) shared.set(name, (shared.get(name) ?? 0) + 1);
  }
  return [...shared]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .slice(0, limit)
    .map(([name]) => name);
}

describe("NameIndex", () => {
  it("gives the names sharing most trigrams, also after a common trigram's posting was dropped and rebuilt", () => {
    const index = new NameIndex();
    // "mcp" is in all 5,000 names: its posting is dropped past 4,000 and rebuilt at 2,000.
    const names = Array.from({ length: 5000 }, (_, i) => `mcp_tool_${i}`);
    for (const name of names) index.add(name);
    expect(index.near("mcp_tool_12x", 5)).toEqual(bruteNear(names, "mcp_tool_12x", 5));
    const kept = names.filter((_, i) => i % 5 === 0 || i < 300);
    for (const [i, name] of names.entries()) if (!(i % 5 === 0 || i < 300)) index.remove(name);
    for (const target of ["mcp_tool_12x", "mcp_tol_45", "tool_3000", "xmcp"]) {
      expect(index.near(target, 8)).toEqual(bruteNear(kept, target, 8));
    }
    // With "mcp" rebuilt (fewer than 2,000 holders), a target made of it alone finds them.
    expect(index.near("mcp", 3)).toEqual(bruteNear(kept, "mcp", 3));
    expect(index.near("mcp", 3)).toHaveLength(3);
  });

  it("counts a name added twice (two runs' private tools) until both are removed", () => {
    const index = new NameIndex();
    index.add("github_create_issue");
    index.add("github_create_issue");
    index.remove("github_create_issue");
    expect(index.near("github_create_isue", 1)).toEqual(["github_create_issue"]);
    index.remove("github_create_issue");
    expect(index.near("github_create_isue", 1)).toEqual([]);
  });

  it("does work linear in the names added, whatever their number", () => {
    const perName = (count: number) => {
      const index = new NameIndex();
      for (let i = 0; i < count; i++) index.add(`srv${i % 50}_get_item_${i}`);
      for (let i = 0; i < count; i += 3) index.remove(`srv${i % 50}_get_item_${i}`);
      return index.operations / count;
    };
    // A scan of the names per add or remove would make this ratio about 10.
    expect(perName(20_000) / perName(2_000)).toBeLessThan(1.5);
  });

  it("answers as a brute-force ranking through random additions and removals (postings and lists moved and compacted)", () => {
    const syllables = ["ab", "cd", "ef", "gh", "_", "ij", "kl"];
    const name = fc.array(fc.constantFrom(...syllables), { minLength: 1, maxLength: 6 }).map((parts) => parts.join(""));
    const step = fc.record({ add: fc.boolean(), name, suffix: fc.integer({ min: 0, max: 400 }), pick: fc.nat() });
    fc.assert(
      fc.property(
        fc.array(step, { minLength: 200, maxLength: 3000, size: "max" }),
        fc.array(name, { minLength: 1, maxLength: 4 }),
        (steps, targets) => {
          const index = new NameIndex();
          // Every addition, in order; a removal takes one of them (a name added twice stays once).
          const added: string[] = [];
          for (const { add, name: base, suffix, pick } of steps) {
            if (add || added.length === 0) {
              const full = `${base}${suffix}`;
              index.add(full);
              added.push(full);
            } else {
              const at = pick % added.length;
              index.remove(added[at] as string);
              added[at] = added[added.length - 1] as string;
              added.pop();
            }
          }
          index.remove("absent_name"); // removing an absent name changes nothing
          for (const target of targets) expect(index.near(target, 6)).toEqual(bruteNear([...new Set(added)], target, 6));
        },
      ),
      { numRuns: 30 },
    );
  });
});
