import { type AnyToolDefinition, defineTool } from "agent-tool-catalog";
import { lazySchemas } from "../shared/lazy-zod.js";
import type { WebSearcher } from "./web-searcher.js";

const schemas = lazySchemas((z) => {
  const searchInput = z.object({
    query: z.string().trim().min(1).max(1000).describe("Keywords to search for"),
    max_results: z.number().int().min(1).max(50).optional().describe("Most results to return, 1-50 (default 5)"),
  });
  return { searchInput };
});

/**
 * `web_search`: keyword search through the host's search engine, up to 50 results (default 5).
 *
 * @public
 */
export function createWebSearchTool(searcher: WebSearcher): AnyToolDefinition {
  return defineTool({
    name: "web_search",
    description:
      "Search the web by keywords; returns titles, URLs and snippets (up to 50 results, default 5). Read a result with web_fetch.",
    inputSchema: schemas().searchInput,
    tier: "deferred",
    annotations: { title: "Web search", readOnlyHint: true, openWorldHint: true },
    tags: ["builtin", "web", "search", "internet", "query", "google", "results"],
    handler: async (input, context) => {
      const limit = input.max_results ?? 5;
      const results = (await searcher.search({ query: input.query, limit, signal: context.signal })).slice(0, limit);
      if (results.length === 0) return `No results for ${JSON.stringify(input.query)}.`;
      const lines = results.map((result, index) => {
        const snippet =
          result.snippet === undefined || result.snippet === "" ? "" : `\n   ${result.snippet.replace(/\s+/g, " ").trim()}`;
        return `${index + 1}. ${result.title}\n   ${result.url}${snippet}`;
      });
      return `${results.length} result${results.length === 1 ? "" : "s"} for ${JSON.stringify(input.query)}:\n${lines.join("\n")}`;
    },
  });
}
