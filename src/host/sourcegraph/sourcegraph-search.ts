import { ToolError } from "agent-tool-catalog";

/**
 * One match of a Sourcegraph search, flattened.
 *
 * @public
 */
export interface SourcegraphMatch {
  /** The repository, e.g. `github.com/org/repo`. */
  readonly repository: string;
  /** The file, for file matches. */
  readonly path?: string | undefined;
  /** The 1-based line, for line matches. */
  readonly line?: number | undefined;
  /** The matching text. */
  readonly preview?: string | undefined;
  /** A link to it. */
  readonly url?: string | undefined;
}

/**
 * A search's matches and totals.
 *
 * @public
 */
export interface SourcegraphResults {
  /** Matches Sourcegraph counted. */
  readonly matchCount: number;
  /** True when Sourcegraph stopped at a limit. */
  readonly limitHit: boolean;
  /** The matches, flattened to one per line. */
  readonly matches: readonly SourcegraphMatch[];
}

/**
 * The GraphQL query: file, repository and commit results of a V3 search.
 *
 * @public
 */
export const SOURCEGRAPH_SEARCH_QUERY = `query Search($query: String!) {
  search(query: $query, version: V3) {
    results {
      matchCount
      limitHit
      results {
        __typename
        ... on FileMatch { repository { name } file { path url } lineMatches { preview lineNumber } }
        ... on Repository { name url }
        ... on CommitSearchResult { url commit { repository { name } subject } }
      }
    }
  }
}`;

type Json = Record<string, unknown>;
const record = (value: unknown): Json => (typeof value === "object" && value !== null ? (value as Json) : {});
const text = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);

function flatten(result: Json): SourcegraphMatch[] {
  switch (result.__typename) {
    case "FileMatch": {
      const repository = text(record(result.repository).name) ?? "";
      const file = record(result.file);
      const lines = Array.isArray(result.lineMatches) ? result.lineMatches.map(record) : [];
      const base = { repository, path: text(file.path), url: text(file.url) };
      if (lines.length === 0) return [base];
      // Sourcegraph's lineNumber is 0-based.
      return lines.map((line) => ({
        ...base,
        line: typeof line.lineNumber === "number" ? line.lineNumber + 1 : undefined,
        preview: text(line.preview),
      }));
    }
    case "Repository":
      return [{ repository: text(result.name) ?? "", url: text(result.url) }];
    case "CommitSearchResult": {
      const commit = record(result.commit);
      return [{ repository: text(record(commit.repository).name) ?? "", preview: text(commit.subject), url: text(result.url) }];
    }
    default:
      return [];
  }
}

/**
 * Reads a GraphQL response of {@link SOURCEGRAPH_SEARCH_QUERY}.
 * @throws ToolError `sourcegraph_error` with the server's messages when it reports errors.
 * @public
 */
export function parseSourcegraphResponse(body: unknown): SourcegraphResults {
  const errors = record(body).errors;
  if (Array.isArray(errors) && errors.length > 0) {
    const messages = errors.map((error) => text(record(error).message) ?? "unknown error").join("; ");
    throw new ToolError("sourcegraph_error", `Sourcegraph refused the search: ${messages}`, {
      hint: "Check the query syntax (https://sourcegraph.com/docs/code-search/queries).",
    });
  }
  const results = record(record(record(record(body).data).search).results);
  const items = Array.isArray(results.results) ? results.results.map(record) : [];
  return {
    matchCount: typeof results.matchCount === "number" ? results.matchCount : 0,
    limitHit: results.limitHit === true,
    matches: items.flatMap(flatten),
  };
}
