import { type AnyToolDefinition, defineTool, ToolError, type ToolGroup } from "agent-tool-catalog";
import { checkNumberOption, TIMER_MS } from "../../errors/check-number-option.js";
import { countOf } from "../../errors/count-of.js";
import { describeFetchFailure } from "../shared/fetch-failure.js";
import { lazySchemas } from "../shared/lazy-zod.js";
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
  /** Give up after this many ms: whole ms from 1 to 2^31 - 1 (Node fires a longer timer at once). @defaultValue 20000 */
  readonly timeoutMs?: number;
}

const schemas = lazySchemas((z) => {
  const searchInput = z.object({
    query: z
      .string()
      .trim()
      .min(1)
      .max(2000)
      .describe('Sourcegraph query, e.g. "repo:^github\\.com/org/ lang:go func NewServer"'),
    max_results: z.number().int().min(1).max(100).optional().describe("Most matches to return (default 20)"),
  });
  return { searchInput };
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
      : new ToolError("sourcegraph_unreachable", `Sourcegraph could not be reached: ${describeFetchFailure(error)}.`);
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw new ToolError("http_error", `Sourcegraph answered ${response.status} ${response.statusText}.`, {
      ...(response.status === 401 || response.status === 403
        ? { hint: "The host's Sourcegraph token is missing or lacks access." }
        : {}),
    });
  }
  try {
    return await readJsonCapped(response, MAX_RESPONSE_BYTES);
  } catch (error) {
    // The timeout covers the body too: a server that sends its headers and stalls is a timeout.
    if (timeout.aborted && !signal.aborted)
      throw new ToolError("timeout", `Sourcegraph did not finish its answer within ${timeoutMs / 1000} s.`);
    throw error;
  }
}

/** Bytes of answer read at most: a search of at most 100 results is far smaller. */
const MAX_RESPONSE_BYTES = 8 * 1024 * 1024;

/**
 * The body as JSON, read up to `maxBytes`. `response.json()` buffered a body without end whole,
 * and a body that is not JSON (a proxy's login page) reached the model as tool_failed.
 */
async function readJsonCapped(response: Response, maxBytes: number): Promise<unknown> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (response.body !== null) {
    const reader = response.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) {
        await reader.cancel();
        throw new ToolError(
          "sourcegraph_error",
          `Sourcegraph's answer is larger than ${countOf(maxBytes, "byte")}; it was not read.`,
          {
            hint: "Narrow the query or lower max_results.",
          },
        );
      }
      chunks.push(value);
    }
  }
  const body = Buffer.concat(chunks).toString("utf8");
  try {
    return JSON.parse(body);
  } catch {
    throw new ToolError(
      "sourcegraph_error",
      `Sourcegraph answered with something that is not JSON (${response.headers.get("content-type") ?? "no content type"}): ${JSON.stringify(body.slice(0, 200))}.`,
      { hint: "The host's Sourcegraph endpoint may be wrong, or behind a login page." },
    );
  }
}

/**
 * `sourcegraph`: code search over a Sourcegraph instance's GraphQL API.
 *
 * @public
 */
export function createSourcegraphTool(options: SourcegraphOptions & { readonly endpoint: string }): AnyToolDefinition {
  checkNumberOption(options.timeoutMs, "timeoutMs", TIMER_MS, "createSourcegraphTool");
  return defineTool({
    name: "sourcegraph",
    description:
      "Search code across repositories with Sourcegraph (repo:, file:, lang:, regex). Returns repository, file, line and matching text.",
    inputSchema: schemas().searchInput,
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
      return [`${shown.length} of ${countOf(results.matchCount, "match", "matches")}${more}:`, ...shown.map(line)].join("\n");
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
