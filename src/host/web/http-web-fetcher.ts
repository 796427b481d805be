import { Readable } from "node:stream";
import { ToolError } from "agent-tool-catalog";
import { checkNumberOption, TIMER_MS } from "../../errors/check-number-option.js";
import { assertPublicHost, checkedGet, RefusedAddressError } from "../../tools/sandbox/checked-http-get.js";
import { describeFetchFailure, isConnectionReset } from "../shared/fetch-failure.js";
import { pageText } from "./page-text.js";
import type { WebFetcher, WebFetchRequest, WebPage } from "./web-fetcher.js";

/**
 * Options of {@link HttpWebFetcher}.
 *
 * @public
 */
export interface HttpWebFetcherOptions {
  /** The `fetch` to use (proxies, auth, tests). @defaultValue `globalThis.fetch` */
  readonly fetch?: typeof fetch;
  /**
   * Give up after this many ms, redirects included: whole ms from 1 to 2^31 - 1 (Node fires a
   * longer timer at once, failing every fetch with `timeout`).
   * @defaultValue 20000
   */
  readonly timeoutMs?: number;
  /**
   * Bytes of body read at most; the rest is cut and the page marked truncated. A whole number at
   * least 1 (never `Infinity`: a page could fill the memory).
   * @defaultValue 5 MiB
   */
  readonly maxBytes?: number;
  /** Redirects followed at most: a whole number at least 0 (0 follows none). @defaultValue 5 */
  readonly maxRedirects?: number;
  /** The `User-Agent` header. @defaultValue `"agent-tool-catalog"` */
  readonly userAgent?: string;
  /**
   * Asked before every request, redirects included; return false to refuse a URL (private
   * networks, an allow-list). The default allows every http(s) URL, in line with the library's
   * unrestricted default permissions.
   * @defaultValue allow all
   */
  readonly allowUrl?: (url: URL) => boolean | Promise<boolean>;
  /**
   * Reach loopback, private and link-local addresses even for a request that says
   * `allowPrivateAddresses: false` (a run sandboxed `local` or `workspace`). Without it such a
   * request connects only to public addresses: the address checked is the one connected to (or,
   * with an injected `fetch`, each hop's name is resolved and checked before the request).
   * @defaultValue false
   */
  readonly allowPrivateNetwork?: boolean;
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

async function readCapped(response: Response, maxBytes: number): Promise<{ body: Uint8Array; truncated: boolean }> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  if (response.body !== null) {
    const reader = response.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      const room = maxBytes - size;
      if (value.byteLength > room) {
        if (room > 0) chunks.push(value.subarray(0, room));
        size += room;
        truncated = true;
        await reader.cancel();
        break;
      }
      chunks.push(value);
      size += value.byteLength;
    }
  }
  const body = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return { body, truncated };
}

function parseUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ToolError("invalid_url", `${JSON.stringify(text)} is not an absolute URL.`, {
      hint: "Give a full URL such as https://example.com/page.",
    });
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new ToolError("unsupported_url", `Only http and https URLs can be fetched, not ${url.protocol}.`);
  }
  return url;
}

/**
 * The default {@link WebFetcher}: `fetch` with a timeout, a body size cap, redirects followed by
 * hand (bounded, and each hop checked by `allowUrl`), and content-type aware conversion to text.
 * @public
 */
export class HttpWebFetcher implements WebFetcher {
  private readonly options: HttpWebFetcherOptions;

  constructor(options: HttpWebFetcherOptions = {}) {
    checkNumberOption(options.timeoutMs, "timeoutMs", TIMER_MS, "HttpWebFetcher");
    checkNumberOption(options.maxBytes, "maxBytes", { min: 1, integer: true }, "HttpWebFetcher");
    checkNumberOption(options.maxRedirects, "maxRedirects", { min: 0, integer: true }, "HttpWebFetcher");
    this.options = options;
  }

  /** {@inheritDoc WebFetcher.fetch} */
  async fetch(request: WebFetchRequest): Promise<WebPage> {
    const timeoutMs = Math.min(request.timeoutMs ?? Number.POSITIVE_INFINITY, this.options.timeoutMs ?? 20_000);
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = AbortSignal.any([request.signal, timeout]);
    try {
      const guarded = request.allowPrivateAddresses === false && this.options.allowPrivateNetwork !== true;
      return await this.follow(parseUrl(request.url), signal, guarded);
    } catch (error) {
      if (error instanceof RefusedAddressError) {
        throw new ToolError("address_not_allowed", `Fetching ${request.url} was refused: ${error.message}.`, {
          hint: "This run's sandbox does not let web requests reach the host or its private networks; use a public URL.",
        });
      }
      if (timeout.aborted && !request.signal.aborted) {
        throw new ToolError("timeout", `Fetching ${request.url} took longer than ${timeoutMs / 1000} s.`, {
          hint: "Try again later, or another page.",
        });
      }
      if (error instanceof ToolError || request.signal.aborted) throw error;
      throw new ToolError("fetch_failed", `Fetching ${request.url} failed: ${describeFetchFailure(error)}.`);
    }
  }

  private async follow(start: URL, signal: AbortSignal, guarded: boolean): Promise<WebPage> {
    const maxRedirects = this.options.maxRedirects ?? 5;
    let url = start;
    for (let redirects = 0; ; redirects++) {
      if (this.options.allowUrl !== undefined && !(await this.options.allowUrl(url))) {
        throw new ToolError("url_not_allowed", `The host does not allow fetching ${url.href}.`);
      }
      const headers = {
        "user-agent": this.options.userAgent ?? "agent-tool-catalog",
        accept: "text/html, text/*;q=0.9, application/json;q=0.8, */*;q=0.5",
      };
      const send = async (): Promise<Response> => {
        if (guarded && this.options.fetch === undefined) return await checkedResponse(url, signal, headers);
        if (guarded) await assertPublicHost(url);
        return await (this.options.fetch ?? globalThis.fetch)(url, { signal, redirect: "manual", headers });
      };
      let response: Response;
      try {
        response = await send();
      } catch (error) {
        // A pooled keep-alive connection the server closed as the request went out is reset before
        // any answer; a GET is safe to send again, once, as browsers do (a new connection then).
        if (signal.aborted || !isConnectionReset(error)) throw error;
        response = await send();
      }
      const location = response.headers.get("location");
      if (!REDIRECT_STATUSES.has(response.status) || location === null) return this.page(url, response);
      await response.body?.cancel();
      if (redirects >= maxRedirects) {
        throw new ToolError("too_many_redirects", `${start.href} redirected more than ${maxRedirects} times.`, {
          data: { last: url.href },
        });
      }
      url = parseUrl(new URL(location, url).href);
    }
  }

  private async page(url: URL, response: Response): Promise<WebPage> {
    if (!response.ok) {
      await response.body?.cancel();
      throw new ToolError("http_error", `GET ${url.href} answered ${response.status} ${response.statusText}.`, {
        data: { status: response.status },
      });
    }
    const { body, truncated } = await readCapped(response, this.options.maxBytes ?? 5 * 1024 * 1024);
    const { text, title, mediaType } = pageText(body, response.headers.get("content-type"), url.href);
    return { url: url.href, status: response.status, contentType: mediaType, title, text, bytes: body.byteLength, truncated };
  }
}

/** One hop over {@link checkedGet}: connected only to a checked public address, as a `Response`. */
async function checkedResponse(url: URL, signal: AbortSignal, headers: Record<string, string>): Promise<Response> {
  const checked = await checkedGet(url, { signal, allowPrivateAddresses: false, followRedirects: false, headers });
  const responseHeaders = new Headers();
  for (const [name, value] of Object.entries(checked.headers)) {
    if (value === undefined) continue;
    for (const each of Array.isArray(value) ? value : [value]) responseHeaders.append(name, each);
  }
  const status = checked.status >= 200 && checked.status <= 599 ? checked.status : 502;
  const empty = status === 204 || status === 205 || status === 304;
  const body = empty ? null : (Readable.toWeb(Readable.from(checked.body)) as ReadableStream<Uint8Array>);
  return new Response(body, { status, statusText: checked.statusText, headers: responseHeaders });
}
