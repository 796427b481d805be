import { describe, expect, it } from "vitest";
import { readOnlyEntryLinks } from "./read-only-entry-links.js";

describe("readOnlyEntryLinks", () => {
  const linked = [
    { path: "/ws/vendor/lib.js", identity: "1:10" },
    { path: "/ws/planted.js", identity: "1:10" },
    { path: "/ws/deep/again.js", identity: "1:10" },
    { path: "/ws/own-a.js", identity: "1:20" },
    { path: "/ws/own-b.js", identity: "1:20" },
    { path: "/ws/vendor-x/c.js", identity: "1:30" },
    { path: "/ws/vendor/only.js", identity: "1:40" },
  ];

  it("names every other name of an entry's file, and nothing else", () => {
    expect(readOnlyEntryLinks(["/ws/vendor"], linked)).toEqual(["/ws/planted.js", "/ws/deep/again.js"]);
  });

  it("takes an entry that is a file, and a sibling sharing its name's prefix as outside it", () => {
    expect(readOnlyEntryLinks(["/ws/vendor-x/c.js"], [...linked, { path: "/ws/copy.js", identity: "1:30" }])).toEqual([
      "/ws/copy.js",
    ]);
  });

  it("names nothing without entries, or when no entry's file has another name", () => {
    expect(readOnlyEntryLinks([], linked)).toEqual([]);
    expect(readOnlyEntryLinks(["/ws/other"], linked)).toEqual([]);
  });
});
