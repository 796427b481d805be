import { describe, expect, it } from "vitest";
import { SearchIndex } from "./search-index.js";
import { rawWords } from "./tokenize.js";
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

  it("matches parameters, titles and stems, not bare prefixes", () => {
    const search = index();
    expect(search.search("cities")[0]?.name).toBe("weather_forecast");
    expect(search.search("emails")[0]?.name).toBe("send_email");
    expect(search.search("calend")).toEqual([]);
  });

  it("splits run-together query words as names are split", () => {
    const search = new SearchIndex();
    search.set({ name: "read_file", description: "Reads a file." });
    search.set({ name: "ReadMultipleFiles", description: "Reads several." });
    search.set({ name: "write_file", description: "Writes a file." });
    search.set({ name: "list_directory", description: "Lists entries." });
    const top = search.search("readfile", 2).map((hit) => hit.name);
    expect(top).toEqual(expect.arrayContaining(["read_file", "ReadMultipleFiles"]));
    expect(search.search("listdirectory")[0]?.name).toBe("list_directory");
    expect(new SearchIndex({ splitCompounds: false }).search("readfile")).toEqual([]);
  });

  it("joins two query words that a tool name runs together (heap snapshot -> take_heapsnapshot)", () => {
    const search = new SearchIndex();
    search.set({ name: "take_heapsnapshot", description: "Capture a heap snapshot of the page's memory." });
    search.set({ name: "browser_snapshot", description: "Capture an accessibility snapshot of the page." });
    search.set({ name: "take_screenshot", description: "Take a screenshot of the page." });
    expect(search.search("heap snapshot", 1)[0]?.name).toBe("take_heapsnapshot");
    // Control: without it the short name that holds one of the words ranks first.
    const plain = new SearchIndex({ splitCompounds: false });
    for (const name of ["take_heapsnapshot", "browser_snapshot", "take_screenshot"])
      plain.set({ name, description: name === "take_screenshot" ? "Take a screenshot of the page." : "Capture a snapshot." });
    expect(plain.search("heap snapshot", 1)[0]?.name).not.toBe("take_heapsnapshot");
  });

  it("joins and splits the words of a query with accents as of a plain one (CircleCI in a Spanish request)", () => {
    const search = new SearchIndex();
    search.set({
      name: "mcp_circleci_rerun_workflow",
      description: "Reruns a workflow from the failed job.",
      tags: ["mcp_server:circleci"],
    });
    search.set({
      name: "mcp_gitlab_pipeline_status",
      description: "Status of a GitLab CI pipeline.",
      tags: ["mcp_server:gitlab"],
    });
    // "Circle CI" as written is two words; the server is one: joined, as in an ASCII query.
    expect(search.search("Relanza el flujo de CircleCI desde el trabajo que falló")[0]?.name).toBe("mcp_circleci_rerun_workflow");
    expect(search.search("Relanza el flujo de CircleCI desde el trabajo que fallo")[0]?.name).toBe("mcp_circleci_rerun_workflow");
    expect(rawWords("¿Falló el flujo de CircleCI? 列出")).toEqual(["fallo", "el", "flujo", "de", "circle", "ci"]);
  });

  it("corrects a misspelt query word to the indexed words one edit away, below an exact match", () => {
    const search = new SearchIndex();
    search.set({ name: "git_reflog", description: "View the reference logs of branch tips." });
    search.set({ name: "git_log", description: "View commit history." });
    search.set({ name: "git_commit", description: "Record staged changes." });
    search.set({ name: "git_status", description: "Show the working tree status." });
    expect(search.search("show the reflgo", 1)[0]?.name).toBe("git_reflog");
    expect(search.search("comit the staged changes", 1)[0]?.name).toBe("git_commit");
    // A correction counts typoWeight (0.5) of an exact match: the same word spelt right scores more.
    const misspelt = search.search("reflgo", 1)[0]?.score ?? 0;
    const exact = search.search("reflog", 1)[0]?.score ?? 0;
    expect(misspelt).toBeGreaterThan(0);
    expect(misspelt).toBeLessThan(exact);
    // Bounds: words under 5 letters, and stems cut under 5 (`testing` -> `test`), are not corrected.
    expect(search.search("stat")).toEqual([]);
    expect(search.search("lgo")).toEqual([]);
    // Off: typoWeight 0.
    const off = new SearchIndex({ typoWeight: 0 });
    off.set({ name: "git_reflog", description: "View the reference logs of branch tips." });
    expect(off.search("reflgo")).toEqual([]);
    expect(() => new SearchIndex({ typoWeight: 2 })).toThrow(
      expect.objectContaining({ code: "invalid_option", data: expect.objectContaining({ field: "typoWeight" }) }),
    );
  });

  it("takes the server from the mcp_server tag or the name prefix, and ranks by it", () => {
    const search = new SearchIndex();
    search.set({ name: "mcp_github_create_issue", description: "Create an issue.", tags: ["mcp", "mcp_server:github"] });
    search.set({ name: "mcp_gitlab_create_issue", description: "Create an issue.", tags: ["mcp", "mcp_server:gitlab"] });
    search.set({ name: "jira__create_issue", description: "Create an issue." });
    expect(search.search("github issue")[0]?.name).toBe("mcp_github_create_issue");
    expect(search.search("gitlab issue")[0]?.name).toBe("mcp_gitlab_create_issue");
    expect(search.search("jira issue")[0]?.name).toBe("jira__create_issue");
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

  it("updates in place: the same scores as an index built from the final documents", () => {
    const documents = Array.from({ length: 60 }, (_, i) => ({
      name: `tool_${i}_${["file", "mail", "git", "web"][i % 4]}`,
      description: `Handles ${["files and folders", "mail messages", "commits", "pages"][i % 4]} number ${i}.`,
      parameters: [{ name: i % 2 === 0 ? "path" : "query", description: "What to act on" }],
    }));
    const incremental = new SearchIndex({ statisticsTolerance: 0 });
    for (const document of documents) incremental.set(document);
    for (let i = 0; i < 60; i += 3) incremental.delete(documents[i]?.name as string);
    for (let i = 1; i < 60; i += 5)
      if (i % 3 !== 0) incremental.set({ ...(documents[i] as (typeof documents)[number]), description: "Replaced mail text." });
    const fresh = new SearchIndex({ statisticsTolerance: 0 });
    for (let i = 0; i < 60; i++) {
      if (i % 3 === 0) continue;
      const document = documents[i] as (typeof documents)[number];
      fresh.set(i % 5 === 1 ? { ...document, description: "Replaced mail text." } : document);
    }
    expect(incremental.size).toBe(fresh.size);
    for (const query of ["file folders", "mail", "git commits path", "replaced text query", "pages web 7"]) {
      const a = incremental.search(query, 50);
      const b = fresh.search(query, 50);
      expect(a.map((hit) => hit.name)).toEqual(b.map((hit) => hit.name));
      for (const [i, hit] of a.entries()) expect(hit.score).toBeCloseTo(b[i]?.score as number, 9);
    }
  });

  it("build() and commits between changes choose no averages: scores equal an index that only searched (default tolerance)", () => {
    const documentOf = (i: number, length: number) => ({
      name: `tool_${i}`,
      description: Array.from({ length }, (_, k) => ["file", "mail", "git", "web"][(i + k) % 4]).join(" "),
    });
    const built = new SearchIndex();
    const searched = new SearchIndex();
    for (let i = 0; i < 400; i++) {
      built.stage(documentOf(i, 3));
      searched.stage(documentOf(i, 3));
    }
    // Weights computed ahead of a search, under the averages of 400 short documents.
    built.build();
    // Two longer ones move the description's average by 0.5%, under the 1% tolerance.
    for (let i = 400; i < 402; i++) {
      built.stage(documentOf(i, 6));
      searched.stage(documentOf(i, 6));
    }
    built.commitStaged(3);
    for (const query of ["file", "mail git", "web file mail"])
      expect(built.search(query, 50)).toEqual(searched.search(query, 50));
    // Positive control: averages before and after the two differ enough to change scores.
    const before = new SearchIndex();
    for (let i = 0; i < 400; i++) before.stage(documentOf(i, 3));
    expect(before.search("file", 1)[0]?.score).not.toBe(searched.search("file", 1)[0]?.score);
  });

  it("keeps exact scores through heavy churn (slots reused, term storage compacted) and removes in one document's work", () => {
    const words = ["file", "mail", "git", "web", "page", "issue", "branch", "calendar", "event", "city"];
    const documentOf = (i: number, round: number) => ({
      name: `srv${i % 7}__tool_${i}_${words[i % 10]}`,
      description: `Handles ${words[(i * 3) % 10]} and ${words[(i + round) % 10]} items, round ${round}.`,
      tags: round % 2 === 0 ? ["even"] : [],
      parameters: [{ name: words[(i + 5) % 10] as string, description: `The ${words[(i * 7) % 10]} to use` }],
    });
    const incremental = new SearchIndex({ statisticsTolerance: 0 });
    const live = new Map<string, ReturnType<typeof documentOf>>();
    const put = (i: number, round: number) => {
      const document = documentOf(i, round);
      incremental.set(document);
      live.set(document.name, document);
    };
    for (let i = 0; i < 3000; i++) put(i, 0);
    incremental.search("warm up weights");
    // Three rounds: remove two thirds, replace some, add new ones; searches in between make later
    // additions compute their weights at once.
    for (let round = 1; round <= 3; round++) {
      for (const name of [...live.keys()]) {
        if (name.length % 3 !== round % 3) {
          incremental.delete(name);
          live.delete(name);
        }
      }
      incremental.search("mail");
      for (let i = 0; i < 3000; i += 4) put(i, round);
      for (let i = 3000 * round; i < 3000 * round + 500; i++) put(i, round);
    }
    const fresh = new SearchIndex({ statisticsTolerance: 0 });
    for (const document of live.values()) fresh.set(document);
    expect(incremental.size).toBe(fresh.size);
    for (const query of ["file mail", "git branch issue", "calendar event city round 3", "srv3 web page", "even"]) {
      const a = incremental.search(query, 30);
      const b = fresh.search(query, 30);
      expect(a.map((hit) => hit.name)).toEqual(b.map((hit) => hit.name));
      for (const [i, hit] of a.entries()) expect(hit.score).toBeCloseTo(b[i]?.score as number, 9);
    }
    // Removing one document touches its own terms (a binary search in each one's postings, sorted
    // by slot), not postings as long as the index.
    const removed = live.keys().next().value as string;
    // biome-ignore lint/complexity/useLiteralKeys: private state, read by the test
    const terms = (incremental["termCount"] as Int32Array)[incremental["slotOf"].get(removed) as number] as number;
    const before = incremental.operations;
    incremental.delete(removed);
    const steps = incremental.operations - before;
    expect(terms).toBeGreaterThan(5);
    // Per term: the binary search (log2 of its postings, at most log2 of all) and the marking.
    expect(steps).toBeLessThanOrEqual(terms * (Math.ceil(Math.log2(incremental.postingCount)) + 1));
    // Control: a scan of each term's postings would cost more than a hundred times as much.
    expect(incremental.postingCount).toBeGreaterThan(100 * steps);
  });

  it("skips common words only where that cannot change the top k", () => {
    const search = new SearchIndex();
    const words = ["alpha", "beta", "gamma", "delta", "omega", "sigma", "kappa", "theta"];
    for (let i = 0; i < 400; i++) {
      const text = words.filter((_, w) => (i * (w + 3)) % (w + 2) !== 0).join(" ");
      search.set({ name: `t${i}`, description: `${text} common ${i % 7 === 0 ? "rare" : "usual"} words` });
    }
    for (const query of ["rare alpha common words", "kappa theta usual", "omega rare sigma beta common"]) {
      for (const accept of [undefined, (name: string) => !name.endsWith("7")]) {
        const all = search.search(query, 400, accept);
        expect(search.search(query, 5, accept)).toEqual(all.slice(0, 5));
      }
    }
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
