import { describe, expect, it } from "vitest";
import { randomHex } from "./random-hex.js";

describe("randomHex", () => {
  it("gives lowercase hex of the asked length, never the same twice across pool refills", () => {
    const seen = new Set<string>();
    // 5,000 eight-byte draws: the 4,096-byte pool is refilled nine times.
    for (let draw = 0; draw < 5000; draw++) {
      const hex = randomHex(8);
      expect(hex).toMatch(/^[0-9a-f]{16}$/);
      seen.add(hex);
    }
    expect(seen.size).toBe(5000);
  });

  it("serves odd sizes and sizes larger than the pool", () => {
    expect(randomHex(6)).toMatch(/^[0-9a-f]{12}$/);
    expect(randomHex(5000)).toMatch(/^[0-9a-f]{10000}$/);
    expect(randomHex(0)).toBe("");
  });
});
