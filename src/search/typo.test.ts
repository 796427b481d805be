import { describe, expect, it } from "vitest";
import { oneEditApart } from "./typo.js";

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
