import { describe, expect, it } from "vitest";
import { SearchIndex } from "./search-index.js";
import { TopK } from "./top-k.js";

function index(): SearchIndex {
  const search = new SearchIndex();
  search.set({ name: "git_log_search", description: "Search commit messages and diffs.", tags: ["git"] });
  search.set({
    name: "weather_forecast",
    description: "Forecast for a city.",
    parameters: [{ name: "city", description: "City name" }],
  });
  search.set({ name: "calendar_events", description: "List events of a calendar.", title: "Calendar" });
  search.set({ name: "send_email", description: "Send an email message, such as a calendar invite." });
  return search;
}

describe("SearchIndex", () => {
  it("ranks a word in the name above the same word in a description", () => {
    const hits = index().search("calendar");
    expect(hits.map((hit) => hit.name)).toEqual(["calendar_events", "send_email"]);
    expect(index().search("search")[0]?.name).toBe("git_log_search");
  });

  it("matches parameters, titles, stems and prefixes", () => {
    const search = index();
    expect(search.search("cities")[0]?.name).toBe("weather_forecast");
    expect(search.search("calend")[0]?.name).toBe("calendar_events");
    expect(search.search("emails")[0]?.name).toBe("send_email");
  });

  it("respects the limit and the filter", () => {
    const search = index();
    expect(search.search("search forecast calendar email", 2)).toHaveLength(2);
    expect(search.search("forecast", 5, (name) => name !== "weather_forecast")).toEqual([]);
    expect(search.search("forecast", 0)).toEqual([]);
  });

  it("follows additions and removals", () => {
    const search = index();
    search.delete("send_email");
    expect(search.search("email")).toEqual([]);
    search.set({ name: "send_email", description: "Send mail." });
    expect(search.search("email")[0]?.name).toBe("send_email");
    expect(search.size).toBe(4);
  });

  it("returns nothing for an empty index or an empty query", () => {
    expect(new SearchIndex().search("anything")).toEqual([]);
    expect(index().search("")).toEqual([]);
    expect(index().search("the of and")).toEqual([]);
  });

  it("gives equal scores a stable order by name", () => {
    const search = new SearchIndex();
    for (const name of ["b_tool", "a_tool", "c_tool"]) search.set({ name, description: "Same words." });
    expect(search.search("same words").map((hit) => hit.name)).toEqual(["a_tool", "b_tool", "c_tool"]);
  });
});

describe("TopK", () => {
  it("keeps the k best of many, best first", () => {
    const top = new TopK(3);
    const scores = [5, 1, 9, 3, 7, 7, 2, 8];
    for (const [index, score] of scores.entries()) top.offer(`t${index}`, score);
    expect(top.sorted()).toEqual([
      { name: "t2", score: 9 },
      { name: "t7", score: 8 },
      { name: "t4", score: 7 },
    ]);
  });
});
