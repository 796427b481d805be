import { describe, expect, it } from "vitest";
import { LruCache } from "../../src/git/lru-cache.js";

describe("LruCache (two generations)", () => {
  it("keeps at most its budget, forgets the least recently used first, and keeps what is used", () => {
    const cache = new LruCache<number, string>(100, () => 10);
    for (let key = 0; key < 6; key++) cache.set(key, `v${key}`);
    // Entry 0 is used while the young half fills: it moves to the young half and survives.
    expect(cache.get(0)).toBe("v0");
    for (let key = 6; key < 30; key++) {
      cache.set(key, `v${key}`);
      cache.get(0);
    }
    expect(cache.get(0)).toBe("v0");
    expect(cache.get(1)).toBeUndefined();
    expect(cache.get(29)).toBe("v29");
    // Never more than the budget: 10 entries of weight 10.
    expect(cache.size).toBeLessThanOrEqual(10 + 1);
  });

  it("refuses a value heavier than half the budget, stores null, and clears", () => {
    const cache = new LruCache<string, Buffer | null>(100, (value) => value?.length ?? 1);
    cache.set("big", Buffer.alloc(60));
    expect(cache.get("big")).toBeUndefined();
    cache.set("none", null);
    expect(cache.get("none")).toBeNull();
    cache.clear();
    expect(cache.get("none")).toBeUndefined();
    expect(cache.size).toBe(0);
  });
});
