import { describe, expect, it } from "vitest";
import { madeChainOf } from "./remove-made-directories.js";

describe("madeChainOf", () => {
  it("climbs through every made parent, whichever open made it", () => {
    // One parallel open made `/w/p`, another `/w/p/q`: the climb from `/w/p/q/t` reaches `/w/p`.
    const made = new Set(["/w/p", "/w/p/q", "/w/p/q/t", "/w/x"]);
    expect(madeChainOf("/w/p/q/t", made)).toEqual(["/w/p/q/t", "/w/p/q", "/w/p"]);
    expect(madeChainOf("/w/x", made)).toEqual(["/w/x"]);
  });

  it("is empty for a directory the change did not make, and stops at the first one it did not", () => {
    const made = new Set(["/w/a/b"]);
    expect(madeChainOf("/w/a", made)).toEqual([]);
    expect(madeChainOf("/w/a/b", made)).toEqual(["/w/a/b"]);
  });
});
