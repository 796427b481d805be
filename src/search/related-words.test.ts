import { describe, expect, it } from "vitest";
import { relatedWords } from "./related-words.js";
import { SearchIndex } from "./search-index.js";

function chatCatalog(options: ConstructorParameters<typeof SearchIndex>[0] = {}): SearchIndex {
  const search = new SearchIndex(options);
  search.set({ name: "post_message", description: "Post a new message to a channel." });
  search.set({ name: "list_users", description: "List the members of the workspace." });
  search.set({ name: "geocode", description: "Convert an address into coordinates." });
  search.set({ name: "delete_file", description: "Delete a file." });
  search.set({ name: "tell_story", description: "Tell a story about anything." });
  return search;
}

describe("related words", () => {
  it("finds a tool through a word the request uses for the same thing", () => {
    const search = chatCatalog();
    expect(search.search("notify the release channel")[0]?.name).toBe("post_message");
    expect(search.search("who is in our team")[0]?.name).toBe("list_users");
    expect(search.search("remove the old draft")[0]?.name).toBe("delete_file");
    expect(search.search("latitude of the office")[0]?.name).toBe("geocode");
  });

  it("ranks an exact match above a related one", () => {
    // "story" is in tell_story's name; "notify" is only related to post_message's "post".
    const hits = chatCatalog().search("notify story");
    expect(hits.map((hit) => hit.name)).toEqual(["tell_story", "post_message"]);
    expect(hits[0]?.score).toBeGreaterThan((hits[1]?.score ?? 0) * 2);
  });

  it("is off with relatedWeight 0, and takes the host's own groups", () => {
    expect(chatCatalog({ relatedWeight: 0 }).search("notify everyone")).toEqual([]);
    expect(chatCatalog().search("notify everyone")[0]?.name).toBe("post_message");
    expect(chatCatalog({ relatedWeight: 0 }).search("who is in our team")).toEqual([]);
    const search = chatCatalog({ relatedWords: ["gazette story"] });
    expect(search.search("gazette")[0]?.name).toBe("tell_story");
    expect(chatCatalog().search("gazette")).toEqual([]);
  });

  it("counts the related words of a query word once: a tool listing many of them does not outrank one with the right word", () => {
    const search = new SearchIndex();
    search.set({ name: "send_message", description: "Send a message to a channel." });
    // Every related word of "tell" in one description: summed, they outweighed send_message's one.
    search.set({ name: "news_digest", description: "Post, publish, notify, announce, share and broadcast the news." });
    search.set({ name: "delete_file", description: "Delete a file." });
    expect(search.search("tell the team").map((hit) => hit.name)).toEqual(["send_message", "news_digest"]);
    // Positive control: a tool that has the query word itself still ranks first.
    search.set({ name: "tell_team", description: "Tell the team." });
    expect(search.search("tell the team")[0]?.name).toBe("tell_team");
  });

  it("refuses a weight outside 0..1", () => {
    for (const relatedWeight of [2, Number.NaN]) {
      expect(() => new SearchIndex({ relatedWeight })).toThrow(
        expect.objectContaining({ code: "invalid_option", data: expect.objectContaining({ field: "relatedWeight" }) }),
      );
    }
  });

  it("relates stems both ways and never a word to itself", () => {
    const table = relatedWords();
    expect(table.get("send")).toContain("notifi");
    expect(table.get("notifi")).toContain("send");
    for (const [stem, related] of table) expect(related).not.toContain(stem);
  });
});
