import { describe, expect, it } from "vitest";
import { stem } from "./porter-stemmer.js";
import { tokenize } from "./tokenize.js";

describe("stem", () => {
  it.each([
    ["caresses", "caress"],
    ["ponies", "poni"],
    ["cats", "cat"],
    ["searching", "search"],
    ["searched", "search"],
    ["searches", "search"],
    ["hopping", "hop"],
    ["filing", "file"],
    ["happy", "happi"],
    ["relational", "relat"],
    ["conditional", "condit"],
    ["generalization", "gener"],
    ["electricity", "electr"],
    ["adjustment", "adjust"],
    ["controll", "control"],
    ["files", "file"],
    ["file", "file"],
    ["v2", "v2"],
    ["is", "is"],
  ])("stems %s to %s", (word, expected) => {
    expect(stem(word)).toBe(expected);
  });
});

describe("tokenize", () => {
  it("splits snake, kebab and camel case, lower-cases and stems", () => {
    expect(tokenize("git_log_search getHTTPResponse read-file")).toEqual([
      "git",
      "log",
      "search",
      "http",
      "respons",
      "read",
      "file",
    ]);
  });

  it("drops stop words except where asked to keep them", () => {
    expect(tokenize("I want to find the weather for my city")).toEqual(["find", "weather", "citi"]);
    expect(tokenize("get the file", { keepStopWords: true })).toEqual(["get", "the", "file"]);
  });

  it("folds accents and full-width characters", () => {
    expect(tokenize("Café ＡＰＩ")).toEqual(["cafe", "api"]);
  });

  it("splits scripts written without spaces into character pairs", () => {
    expect(tokenize("天气预报")).toEqual(["天气", "气预", "预报"]);
    expect(tokenize("查")).toEqual(["查"]);
  });
});
