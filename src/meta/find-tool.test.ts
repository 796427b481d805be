import { describe, expect, it } from "vitest";
import { cpuMsOf } from "../../test/support/cpu-time.js";
import { sampleTools } from "../../test/support/sample-tools.js";
import { createRegistry } from "../registry/registry.js";
import { defineTool } from "../tool/define-tool.js";
import type { ToolCallResult } from "../tool/tool-call-result.js";
import { FIND_TOOL_RELATIVE_THRESHOLD, type FindToolOutput } from "./find-tool.js";
import { oneLineDescription } from "./one-line-description.js";

function output(result: ToolCallResult): FindToolOutput {
  if (!result.ok) throw new Error(`find_tool failed: ${JSON.stringify(result.error)}`);
  return result.output as FindToolOutput;
}

describe("find_tool", () => {
  it("searches deferred tools by keywords and activates the best matches", async () => {
    const run = createRegistry({ tools: sampleTools() }).createRun();
    const found = output(await run.call("find_tool", { query: "search the git commit history", limit: 1 }));
    expect(found.activated).toEqual([
      { name: "git_log_search", description: "Search commit history by message or by diff content (pickaxe)." },
    ]);
    expect(run.isVisible("git_log_search")).toBe(true);
    expect(run.isVisible("git_blame_context")).toBe(false);
    expect(found.message).toMatch(/^Activated 1 tool; call it directly by name\.$/);
  });

  it("finds a tool through a misspelt query word, and not with typoWeight 0 (positive control)", async () => {
    const run = createRegistry({ tools: sampleTools() }).createRun();
    const found = output(await run.call("find_tool", { query: "serach the comit histroy", limit: 1 }));
    expect(found.activated.map((tool) => tool.name)).toEqual(["git_log_search"]);
    const off = createRegistry({ tools: sampleTools(), search: { typoWeight: 0 } }).createRun();
    expect(output(await off.call("find_tool", { query: "serach the comit histroy", limit: 1 })).activated).toEqual([]);
  });

  it("matches parameter names and descriptions and tags", async () => {
    const run = createRegistry({ tools: sampleTools() }).createRun();
    expect(output(await run.call("find_tool", { query: "url", limit: 1 })).activated[0]?.name).toBe("web_fetch");
    expect(output(await run.call("find_tool", { query: "schedule", limit: 1 })).activated[0]?.name).toBe("cron_create");
  });

  it("never returns core tools, and reports already active tools as available", async () => {
    const run = createRegistry({ tools: sampleTools() }).createRun();
    run.activate(["git_log_search"]);
    const found = output(await run.call("find_tool", { query: "read write file git history" }));
    expect(found.activated.map((tool) => tool.name)).not.toContain("read");
    expect(found.already_available.map((tool) => tool.name)).toEqual(["git_log_search"]);
  });

  it("activates exact names with select:, also several at once", async () => {
    const run = createRegistry({ tools: sampleTools() }).createRun();
    const found = output(await run.call("find_tool", { query: "select: web_fetch , cron_create,web_fetch" }));
    expect(found.activated.map((tool) => tool.name)).toEqual(["web_fetch", "cron_create"]);
    const again = output(await run.call("find_tool", { query: "select:web_fetch,read,git_blame_contxt" }));
    expect(again.activated).toEqual([]);
    expect(again.already_available.map((tool) => tool.name)).toEqual(["web_fetch", "read"]);
    expect(again.not_found).toEqual([{ name: "git_blame_contxt", suggestions: ["git_blame_context"] }]);
  });

  it("fails an unknown select: with the closest names", async () => {
    const run = createRegistry({ tools: sampleTools() }).createRun();
    const result = await run.call("find_tool", { query: "select:git_log" });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.code).toBe("unknown_tool");
    expect(result.error.message).toContain('did you mean "git_log_search"');
    expect(run.definitions().map((tool) => tool.name)).toEqual(["find_tool", "read", "write"]);
  });

  it("finds nothing outside allowedTools", async () => {
    const run = createRegistry({ tools: sampleTools() }).createRun({ allowedTools: ["web_fetch"] });
    expect(output(await run.call("find_tool", { query: "git history" })).activated).toEqual([]);
    expect((await run.call("find_tool", { query: "select:git_log_search" })).ok).toBe(false);
    expect(output(await run.call("find_tool", { query: "fetch a web page" })).activated.map((tool) => tool.name)).toEqual([
      "web_fetch",
    ]);
  });

  it("says so when nothing matches, and refuses empty input", async () => {
    const run = createRegistry({ tools: sampleTools() }).createRun();
    expect(output(await run.call("find_tool", { query: "quantum entanglement" }))).toMatchObject({
      activated: [],
      message: /No matching tool/,
    });
    const empty = await run.call("find_tool", { query: "   " });
    expect(empty.ok ? undefined : empty.error.issues?.[0]?.path).toBe("query");
    expect((await run.call("find_tool", { query: "select:" })).ok).toBe(false);
    expect((await run.call("find_tool", { query: "git", limit: 500 })).ok).toBe(false);
  });
});

describe("oneLineDescription", () => {
  it("takes the first sentence of the first non-empty line", () => {
    expect(oneLineDescription("\n\n  Read a file. Then more.\nSecond line.")).toBe("Read a file.");
    expect(oneLineDescription("No period here\nnext")).toBe("No period here");
    expect(oneLineDescription("Version 1.2 is used. Rest.")).toBe("Version 1.2 is used.");
  });

  it("cuts to the limit, counting the ellipsis and whole characters", () => {
    expect(oneLineDescription("abcdefghij", 8)).toBe("abcde...");
    expect(oneLineDescription("日本語のテキストです", 6)).toBe("日本語...");
    expect([...oneLineDescription("🙂".repeat(100), 10)]).toHaveLength(10);
  });

  it("ends a sentence after a dotted abbreviation when a capitalised word follows, but not after e.g.", () => {
    expect(oneLineDescription("Works in the U.S. It also works elsewhere.")).toBe("Works in the U.S.");
    expect(oneLineDescription("Runs at 5 p.m. Then it stops.")).toBe("Runs at 5 p.m.");
    // Controls: a lower-case word goes on; e.g., i.e., cf. and vs. introduce what follows.
    expect(oneLineDescription("Runs at 5 p.m. on weekdays. More.")).toBe("Runs at 5 p.m. on weekdays.");
    expect(oneLineDescription("Formats code, e.g. Python or Go. More.")).toBe("Formats code, e.g. Python or Go.");
    expect(oneLineDescription("One id, i.e. The Name. More.")).toBe("One id, i.e. The Name.");
    expect(oneLineDescription("Like grep, cf. Ripgrep docs. More.")).toBe("Like grep, cf. Ripgrep docs.");
    expect(oneLineDescription("Tabs vs. Spaces checker. More.")).toBe("Tabs vs. Spaces checker.");
  });

  it("goes on after U.S., U.K., Dr., Mr. and St. before a name, and ends at them before a sentence's first word", () => {
    // Stop 36 ended every dotted abbreviation before a capital: "the U.S." was a whole sentence.
    expect(oneLineDescription("Trains the U.S. Army and Navy. More.")).toBe("Trains the U.S. Army and Navy.");
    expect(oneLineDescription("Prices in the U.K. Pound sterling. More.")).toBe("Prices in the U.K. Pound sterling.");
    expect(oneLineDescription("Ask Dr. Smith or Mr. Jones. More.")).toBe("Ask Dr. Smith or Mr. Jones.");
    expect(oneLineDescription("Route to St. Louis depots. More.")).toBe("Route to St. Louis depots.");
    expect(oneLineDescription("Reads tar, zip, etc. and the rest. More.")).toBe("Reads tar, zip, etc. and the rest.");
    // Controls: a sentence's first word after them ends it, and so does the end of a list.
    expect(oneLineDescription("Works in the U.S. It also works elsewhere.")).toBe("Works in the U.S.");
    expect(oneLineDescription("Ships to the U.K. The rest waits.")).toBe("Ships to the U.K.");
    expect(oneLineDescription("Sold in the U.S. Returns are free.")).toBe("Sold in the U.S.");
    expect(oneLineDescription("Reads tar, zip, etc. Use it for archives.")).toBe("Reads tar, zip, etc.");
    expect(oneLineDescription("Lives on Main St. Then it moved.")).toBe("Lives on Main St.");
    expect(oneLineDescription("The U.S. market data. More.")).toBe("The U.S. market data.");
    expect(oneLineDescription("Answers in 40 ms. Then it caches.")).toBe("Answers in 40 ms.");
  });

  it("takes time linear in the line, not in the line times its full stops", () => {
    // The abbreviation test ran over all the text before every ". ": 42 s of CPU for 80,000 repeats (old code).
    const dotted = cpuMsOf(() => oneLineDescription("x a.b. ".repeat(40_000)));
    expect(dotted.result).toBe(`${"x a.b. ".repeat(23).slice(0, 157).trimEnd()}...`);
    expect(dotted.cpuMs).toBeLessThan(200);
    // Control: an end within the limit after many abbreviations is still found.
    expect(oneLineDescription(`${"x a.b. ".repeat(20)}end. Next.`)).toBe(`${"x a.b. ".repeat(20)}end.`);
  });
});

describe("find_tool relevance threshold and several queries", () => {
  const tools = () => [
    ...sampleTools(),
    defineTool({
      name: "weather_forecast",
      description: "Weather forecast for a city: temperature, rain and wind for the next days.",
      tier: "deferred",
      inputSchema: { type: "object", properties: { city: { type: "string", description: "City name" } } },
      handler: () => "",
    }),
    defineTool({
      name: "city_guide",
      description: "Sights of a city.",
      tier: "deferred",
      inputSchema: { type: "object" },
      handler: () => "",
    }),
  ];

  it("activates only hits that clear the relative score threshold", async () => {
    const registry = createRegistry({ tools: tools() });
    const hits = registry.search("weather forecast rain wind city", { limit: 5 });
    const weak = hits.filter((hit) => hit.score < FIND_TOOL_RELATIVE_THRESHOLD * (hits[0]?.score ?? 0));
    expect(weak.map((hit) => hit.name)).toContain("city_guide");
    const run = registry.createRun();
    const found = output(await run.call("find_tool", { query: "weather forecast rain wind city", limit: 5 }));
    expect(found.activated.map((tool) => tool.name)).toEqual(["weather_forecast"]);
    expect(run.isVisible("city_guide")).toBe(false);
  });

  it("merges several queries, one per capability, best of each first", async () => {
    const run = createRegistry({ tools: tools() }).createRun();
    const found = output(
      await run.call("find_tool", { queries: ["weather forecast", "search the git commit history"], limit: 1 }),
    );
    expect(found.activated.map((tool) => tool.name)).toEqual(["weather_forecast", "git_log_search"]);
  });

  it("refuses a call without a query, and select: mixed with keywords", async () => {
    const run = createRegistry({ tools: tools() }).createRun();
    const none = await run.call("find_tool", {});
    expect(none.ok ? undefined : none.error.code).toBe("invalid_input");
    const mixed = await run.call("find_tool", { queries: ["select:web_fetch", "weather"] });
    expect(mixed.ok ? undefined : mixed.error.code).toBe("invalid_input");
  });

  it('splits run-together words as names are split ("weatherforecast", "logsearch")', async () => {
    const registry = createRegistry({ tools: tools() });
    expect(registry.search("weatherforecast", { limit: 1 })[0]?.name).toBe("weather_forecast");
    expect(registry.search("logsearch", { limit: 1 })[0]?.name).toBe("git_log_search");
  });
});

describe("find_tool with an embedder on the registry", () => {
  it("ranks by the hybrid score, reaching a tool that shares no word with the request", async () => {
    const folded: Record<string, string> = { press: "click", button: "element" };
    const embedded: string[] = [];
    const registry = createRegistry({
      tools: [
        ...sampleTools(),
        defineTool({
          name: "browser_click",
          description: "Click an element on the page.",
          tier: "deferred",
          inputSchema: { type: "object" },
          handler: () => "",
        }),
      ],
      // Related words off ("press" relates to "click"): only the vectors can reach browser_click.
      search: {
        relatedWeight: 0,
        embedder: {
          id: "folded-words",
          dimensions: 16,
          embed: async (texts) => {
            embedded.push(...texts);
            return texts.map((text) => {
              const vector = new Array<number>(16).fill(0);
              for (const raw of text.toLowerCase().match(/[a-z]+/g) ?? []) {
                const word = folded[raw] ?? raw;
                let hash = 3;
                for (const char of word) hash = (hash * 31 + char.charCodeAt(0)) % 16;
                vector[hash] = (vector[hash] as number) + 1;
              }
              return vector;
            });
          },
        },
      },
    });
    const run = registry.createRun();
    expect(run.search("press the button")).toEqual([]);
    const found = output(await run.call("find_tool", { query: "press the button", limit: 1 }));
    expect(found.activated.map((tool) => tool.name)).toEqual(["browser_click"]);
    const count = embedded.length;
    await run.call("find_tool", { query: "press the button", limit: 1 });
    // Tool vectors are computed once; the second call embeds only its query.
    expect(embedded.length).toBe(count + 1);
  });
});
