/**
 * What to fetch.
 *
 * @public
 */
export interface WebFetchRequest {
  /** An absolute http(s) URL. */
  readonly url: string;
  /** Aborted when the call is cancelled. */
  readonly signal: AbortSignal;
  /** Give up after this many ms, when the caller sets a tighter limit than the fetcher's. */
  readonly timeoutMs?: number | undefined;
  /**
   * `false` when the calling run's sandbox is `local` or `workspace`: the fetcher must then refuse
   * loopback, private, link-local (cloud metadata) and other non-public addresses, on every
   * redirect and for what a name resolves to, as the `download` tool does. `web_fetch` and
   * `agentic_fetch` set it; a fetcher of the host's own should honour it. `undefined`: no rule.
   */
  readonly allowPrivateAddresses?: boolean | undefined;
}

/**
 * A fetched page, as text.
 *
 * @public
 */
export interface WebPage {
  /** The final URL, after redirects. */
  readonly url: string;
  /** The HTTP status. */
  readonly status: number;
  /** The media type, e.g. `text/html` (no parameters). */
  readonly contentType: string;
  /** The page's `<title>`, for HTML. */
  readonly title?: string | undefined;
  /** The readable text: HTML converted, other text types as they are. */
  readonly text: string;
  /** Bytes of body read. */
  readonly bytes: number;
  /** True when the body was cut at the size cap. */
  readonly truncated: boolean;
}

/**
 * Fetches one web page as text: what `web_fetch` and `agentic_fetch` need of the network. The
 * default {@link HttpWebFetcher} uses `fetch`; a host may route through a proxy, a cache or a
 * headless browser instead. Rejects with a `ToolError` the model can read (HTTP error, timeout,
 * unsupported content type).
 * @public
 */
export interface WebFetcher {
  /** Fetches the page. */
  fetch(request: WebFetchRequest): Promise<WebPage>;
}
