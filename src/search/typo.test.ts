import { describe, expect, it } from "vitest";
import { seededRandom } from "../../bench/stats.js";
import { forEachOneEdit, oneEditApart } from "./typo.js";

describe("oneEditApart", () => {
  it.each([
    ["reflgo", "reflog"],
    ["screencsat", "screencast"],
    ["comit", "commit"],
    ["commit", "comit"],
    ["screnshot", "screenshot"],
    ["calender", "calendar"],
    ["xcommit", "commit"],
    ["commitx", "commit"],
  ])("%s and %s are one edit apart", (a, b) => {
    expect(oneEditApart(a, b)).toBe(true);
  });

  it.each([
    ["commit", "commit"],
    ["reflog", "golfer"],
    ["abcd", "badc"],
    ["comit", "commits"],
    ["calendar", "calandre"],
    ["abc", "acbd"],
  ])("%s and %s are not", (a, b) => {
    expect(oneEditApart(a, b)).toBe(false);
  });
});

describe("forEachOneEdit", () => {
  it("visits exactly the words one edit away (against oneEditApart, over random words)", () => {
    const random = seededRandom(3);
    const letters = "abcde";
    const word = (length: number) =>
      Array.from({ length }, () => letters[Math.floor(random() * letters.length)] as string).join("");
    for (let round = 0; round < 200; round++) {
      const source = word(2 + Math.floor(random() * 5));
      const visited = new Set<string>();
      forEachOneEdit(source, (candidate) => visited.add(candidate));
      visited.delete(source);
      for (const candidate of visited) expect(oneEditApart(source, candidate), `${source} ${candidate}`).toBe(true);
      // Every word over the same letters one edit away is visited.
      for (let other = 0; other < 200; other++) {
        const probe = word(source.length - 1 + Math.floor(random() * 3));
        if (oneEditApart(source, probe)) expect(visited.has(probe), `${source} ${probe}`).toBe(true);
      }
    }
  });
});
