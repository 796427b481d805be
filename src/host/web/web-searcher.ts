/**
 * One search result.
 *
 * @public
 */
export interface WebSearchResult {
  /** The page's title. */
  readonly title: string;
  /** Its URL. */
  readonly url: string;
  /** A short extract. */
  readonly snippet?: string | undefined;
}

/**
 * A search request.
 *
 * @public
 */
export interface WebSearchRequest {
  /** The keywords. */
  readonly query: string;
  /** Most results wanted (1-50). */
  readonly limit: number;
  /** Aborted when the call is cancelled. */
  readonly signal: AbortSignal;
}

/**
 * A web search engine, as `web_search` needs it. There is no default: a search engine is a
 * third-party service with its own keys and terms, so `web_search` exists only when the host
 * supplies one.
 * @public
 */
export interface WebSearcher {
  /** Runs the search; may return more than `limit` results (extra ones are dropped). */
  search(request: WebSearchRequest): Promise<readonly WebSearchResult[]>;
}
