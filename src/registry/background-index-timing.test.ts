import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { defineTool } from "../tool/define-tool.js";
import type { AnyToolDefinition } from "../tool/tool-definition.js";
import { createRegistry, type RegisteredToolHandle, type Registry } from "./registry.js";

const WORDS = ["send", "message", "issue", "file", "branch", "invoice", "calendar", "record", "user", "page"];

/** A deferred tool whose description has `length` words (drawn from a small vocabulary). */
function tool(name: string, length: number, seed: number, first?: string): AnyToolDefinition {
  const words = Array.from({ length }, (_, i) => WORDS[(seed * 7 + i * 3) % WORDS.length] as string);
  if (first !== undefined) words[0] = first;
  return defineTool({
    name,
    description: `${words.join(" ")}.`,
    tier: "deferred",
    inputSchema: { type: "object", properties: {} },
    handler: () => "",
  });
}

const QUERIES = ["ledger", "send a message", "invoice record", "branch file", "calendar user page", "issue"];

/** Every query's hits, names and scores, deep enough to see the scores of many tools. */
function answers(registry: Registry): unknown[] {
  return QUERIES.map((query) => registry.search(query, { limit: 50 }));
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Turns of the event loop until no background slice is scheduled (or `most` turns). */
async function drain(registry: Registry, most = 10_000): Promise<void> {
  for (let turns = 0; turns < most && Reflect.get(registry, "indexing") !== undefined; turns++) await turn();
}

/** The same registrations and removals applied to two registries. */
class Both {
  private readonly handles: [RegisteredToolHandle, RegisteredToolHandle][] = [];
  private next = 0;
  constructor(
    private readonly a: Registry,
    private readonly b: Registry,
  ) {}
  add(count: number, length: number): void {
    for (let i = 0; i < count; i++, this.next++) {
      const definition = tool(`t_${this.next}`, length, this.next);
      this.handles.push([this.a.register(definition), this.b.register(definition)]);
    }
  }
  /** Removes every `every`-th tool still registered. */
  removeEvery(every: number): void {
    const kept = this.handles.filter((pair, i) => {
      if (i % every !== 0) return true;
      for (const handle of pair) handle.remove();
      return false;
    });
    this.handles.splice(0, this.handles.length, ...kept);
  }
}

describe("background indexing never changes scores (which averages a search uses does not depend on timing)", () => {
  it("1,000 short tools indexed in the background, then 5 long ones: hits and scores equal the synchronous registry's", async () => {
    const short = Array.from({ length: 1_000 }, (_, i) => tool(`short_${i}`, 3, i));
    // Long enough to move the description's average by under 1% (the tolerance: 3 -> 3.025), so only
    // a search that chose the averages before they arrived would keep the older ones.
    const long = Array.from({ length: 5 }, (_, i) => tool(`long_${i}`, 8, i, "ledger"));
    const background = createRegistry({ tools: short, indexInBackground: 1 });
    const synchronous = createRegistry({ tools: short, indexInBackground: false });
    await drain(background);
    // Positive control: the background did the work (the commit and the weights), not the search.
    expect(Reflect.get(background, "queuedIndexChanges")).toBe(0);
    for (const definition of long) {
      background.register(definition);
      synchronous.register(definition);
    }
    await drain(background);
    const expected = answers(synchronous);
    expect(answers(background)).toEqual(expected);
    // The long tools are among the hits, with their own scores.
    expect(JSON.stringify(expected)).toContain("long_");
  }, 60_000);

  it("random batches of registrations and removals with random drains and searches: equal to the synchronous registry", async () => {
    const step = fc.oneof(
      // Large batches, then small ones that move the averages by less than the tolerance.
      fc.record({
        kind: fc.constant("add" as const),
        count: fc.oneof(fc.integer({ min: 1, max: 4 }), fc.integer({ min: 100, max: 400 })),
        length: fc.integer({ min: 2, max: 6 }),
      }),
      fc.record({ kind: fc.constant("remove" as const), every: fc.integer({ min: 2, max: 9 }) }),
      fc.record({ kind: fc.constant("drain" as const), turns: fc.integer({ min: 0, max: 40 }) }),
      fc.record({ kind: fc.constant("search" as const) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 12 }), async (steps) => {
        const background = createRegistry({ tools: [], indexInBackground: 1 });
        const synchronous = createRegistry({ tools: [], indexInBackground: false });
        const both = new Both(background, synchronous);
        for (const s of steps) {
          if (s.kind === "add") both.add(s.count, s.length);
          else if (s.kind === "remove") both.removeEvery(s.every);
          else if (s.kind === "drain") await drain(background, s.turns);
          else expect(answers(background)).toEqual(answers(synchronous));
        }
        await drain(background);
        expect(answers(background)).toEqual(answers(synchronous));
        await background.close();
        await synchronous.close();
      }),
      { numRuns: 40 },
    );
  }, 120_000);
});
