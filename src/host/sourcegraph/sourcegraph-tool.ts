import { type AnyToolDefinition, defineTool, ToolError, type ToolGroup } from "agent-tool-catalog";
import { z } from "zod";
import { parseSourcegraphResponse, SOURCEGRAPH_SEARCH_QUERY, type SourcegraphMatch } from "./sourcegraph-search.js";

/**
 * Options of {@link sourcegraphToolGroup}.
 *
 * @public
 */
export interface SourcegraphOptions {
  /** The Sourcegraph instance, e.g. `https://sourcegraph.example.com`; empty or absent: no tool. */
  readonly endpoint?: string;
  /** An access token, sent as `Authorization: token <token>`. */
  readonly token?: string;
  /** The `fetch` to use. @defaultValue `globalThis.fetch` */
  readonly fetch?: typeof fetch;
  /** Give up after this many ms. @defaultValue 20000 */
  readonly timeoutMs?: number;
}

const searchInput = z.object({
  query: z.string().trim().min(1).max(2000).describe('Sourcegraph query, e.g. "repo:^github\\.com/org/ lang:go func NewServer"'),
  max_results: z.number().int().min(1).max(100).optional().describe("Most matches to return (default 20)"),
});

function graphqlUrl(endpoint: string): string {
  const trimmed = endpoint.replace(/\/+$/, "");
  return trimmed.endsWith("/.api/graphql") ? trimmed : `${trimmed}/.api/graphql`;
}

function line(match: SourcegraphMatch): string {
  const where = [match.repository, match.path].filter((part) => part !== undefined && part !== "").join(" ");
  const at = match.line === undefined ? "" : `:${match.line}`;
  return match.preview === undefined ? `${where}${at}` : `${where}${at}: ${match.preview.trim()}`;
}

async function search(
  options: SourcegraphOptions & { readonly endpoint: string },
  query: string,
  signal: AbortSignal,
): Promise<unknown> {
  const timeoutMs = options.timeoutMs ?? 20_000;
  const timeout = AbortSignal.timeout(timeoutMs);
  let response: Response;
  try {
    response = await (options.fetch ?? globalThis.fetch)(graphqlUrl(options.endpoint), {
      method: "POST",
      signal: AbortSignal.any([signal, timeout]),
      headers: {
        "content-type": "application/json",
        ...(options.token === undefined ? {} : { authorization: `token ${options.token}` }),
      },
      body: JSON.stringify({ query: SOURCEGRAPH_SEARCH_QUERY, variables: { query } }),
    });
  } catch (error) {
    if (timeout.aborted && !signal.aborted)
      throw new ToolError("timeout", `Sourcegraph did not answer within ${timeoutMs / 1000} s.`);
    throw signal.aborted
      ? error
      : new ToolError(
          "sourcegraph_unreachable",
          `Sourcegraph could not be reached: ${error instanceof Error ? error.message : String(error)}.`,
        );
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw new ToolError("http_error", `Sourcegraph answered ${response.status} ${response.statusText}.`, {
      ...(response.status === 401 || response.status === 403
        ? { hint: "The host's Sourcegraph token is missing or lacks access." }
        : {}),
    });
  }
  return response.json();
}

/**
 * `sourcegraph`: code search over a Sourcegraph instance's GraphQL API.
 *
 * @public
 */
export function createSourcegraphTool(options: SourcegraphOptions & { readonly endpoint: string }): AnyToolDefinition {
  return defineTool({
    name: "sourcegraph",
    description:
      "Search code across repositories with Sourcegraph (repo:, file:, lang:, regex). Returns repository, file, line and matching text.",
    inputSchema: searchInput,
    tier: "deferred",
    annotations: { title: "Sourcegraph search", readOnlyHint: true, openWorldHint: true },
    tags: ["builtin", "sourcegraph", "code", "search", "repository", "grep", "cross-repo"],
    handler: async (input, context) => {
      const limit = input.max_results ?? 20;
      const query = /\bcount:/.test(input.query) ? input.query : `${input.query} count:${limit}`;
      const results = parseSourcegraphResponse(await search(options, query, context.signal));
      const shown = results.matches.slice(0, limit);
      if (shown.length === 0) return `No matches for ${JSON.stringify(input.query)}.`;
      const more = results.limitHit || results.matches.length > shown.length ? " (more exist; narrow the query)" : "";
      return [`${shown.length} of ${results.matchCount} matches${more}:`, ...shown.map(line)].join("\n");
    },
  });
}

/**
 * `sourcegraph` as a group, present when an `endpoint` is configured.
 *
 * @public
 */
export function sourcegraphToolGroup(options: SourcegraphOptions): ToolGroup {
  const { endpoint } = options;
  return {
    name: "sourcegraph",
    enabled: endpoint !== undefined && endpoint !== "",
    tools: () => (endpoint === undefined || endpoint === "" ? [] : [createSourcegraphTool({ ...options, endpoint })]),
  };
}
