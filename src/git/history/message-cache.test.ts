import { describe, expect, it } from "vitest";
import type { CommitGraph } from "../objects/commit-graph.js";
import { CommitMessageCache } from "./message-cache.js";

const graph = (count: number) => ({ count }) as CommitGraph;
const bytes = (text: string) => Buffer.from(text, "utf8");
const query = (text: string) => Buffer.from(text, "latin1");

describe("CommitMessageCache", () => {
  it("keeps ASCII messages folded to lower case, marks non-ASCII ones, and answers only for the graph it was filled from", () => {
    const cache = new CommitMessageCache(1 << 20);
    const first = graph(4);
    const content = bytes("tree x\n\nFix The Parser");
    expect(cache.keep(first, 0, content, 8)).toBe(true);
    expect(cache.keep(first, 1, bytes("Ärger mit dem Parser"), 0)).toBe(false);
    expect(cache.matches(first, 0, query("the parser"))).toBe(true);
    expect(cache.matches(first, 0, query("tree"))).toBe(false);
    expect(cache.matches(first, 1, query("parser"))).toBeUndefined();
    expect(cache.isNotAscii(first, 1)).toBe(true);
    expect(cache.matches(first, 2, query("parser"))).toBeUndefined();
    // A match never runs into the next message.
    cache.keep(first, 2, bytes("abc"), 0);
    cache.keep(first, 3, bytes("def"), 0);
    expect(cache.matches(first, 2, query("cd"))).toBe(false);
    expect(cache.matches(first, 3, query("def"))).toBe(true);
    // Another graph numbers commits differently: nothing is known for it until it is filled.
    const second = graph(4);
    expect(cache.matches(second, 0, query("parser"))).toBeUndefined();
    cache.keep(second, 0, bytes("other"), 0);
    expect(cache.matches(second, 0, query("other"))).toBe(true);
    expect(cache.matches(first, 0, query("the parser"))).toBeUndefined();
  });

  it("never holds more than its budget: past it, messages are no longer kept", () => {
    const budget = 10_000;
    const cache = new CommitMessageCache(budget);
    const commits = graph(500);
    const message = bytes("x".repeat(100));
    let kept = 0;
    for (let position = 0; position < 500; position++) {
      cache.keep(commits, position, message, 0);
      if (cache.matches(commits, position, query("xx")) === true) kept++;
      expect(cache.weight).toBeLessThanOrEqual(budget);
    }
    // 4,000 bytes of tables leave room for 60 messages of 100 bytes.
    expect(kept).toBe(60);
    // A graph whose tables alone would take more than half the budget is not cached at all.
    const huge = graph(1000);
    expect(cache.keep(huge, 0, message, 0)).toBe(true);
    expect(cache.matches(huge, 0, query("xx"))).toBeUndefined();
  });
});
