import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from "node:dns";
import { lookup as lookupAll } from "node:dns/promises";
import http, { type IncomingMessage } from "node:http";
import https from "node:https";
import { isIP, type LookupFunction } from "node:net";
import { nonPublicAddressReason } from "./address-policy.js";

/** Thrown when a URL (or a redirect, or what its name resolves to) points at a refused address. */
export class RefusedAddressError extends Error {
  /** The host name or address that was refused. */
  readonly host: string;
  constructor(host: string, reason: string) {
    super(reason);
    this.name = "RefusedAddressError";
    this.host = host;
  }
}

/**
 * For a `fetch` the host injected, which resolves names itself: throws {@link RefusedAddressError}
 * unless every address of `url`'s host is public. (The checked GET pins the addresses it checked
 * instead; an injected fetch may resolve again, which is the host's risk to take.)
 */
export async function assertPublicHost(url: URL): Promise<void> {
  const host = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
  const addresses = isIP(host) !== 0 ? [host] : (await lookupAll(host, { all: true })).map((entry) => entry.address);
  for (const address of addresses) {
    const reason = nonPublicAddressReason(address);
    if (reason !== undefined) throw new RefusedAddressError(host, reason);
  }
}

/** Thrown for a redirect loop or chain longer than {@link CheckedGetOptions.maxRedirects}. */
export class TooManyRedirectsError extends Error {
  constructor(count: number) {
    super(`more than ${count} redirects`);
    this.name = "TooManyRedirectsError";
  }
}

/** Options of {@link checkedGet}. */
export interface CheckedGetOptions {
  readonly signal: AbortSignal;
  /** Reach loopback, private and link-local addresses too (the host's choice). */
  readonly allowPrivateAddresses: boolean;
  /** @defaultValue 10 */
  readonly maxRedirects?: number;
  /** Return a redirect response as it is, for a caller that follows redirects itself. @defaultValue true */
  readonly followRedirects?: boolean;
  /** Request headers. @defaultValue a `user-agent` of the download tool */
  readonly headers?: Readonly<Record<string, string>>;
}

/** A response whose every hop went only to allowed addresses. */
export interface CheckedResponse {
  readonly status: number;
  readonly statusText: string;
  /** The final URL, after redirects. */
  readonly url: string;
  readonly headers: IncomingMessage["headers"];
  readonly body: AsyncIterable<Uint8Array>;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * GET over `node:http`/`node:https` where the address checked is the address connected to:
 * each hop's host name is resolved by this function's own `lookup`, which drops non-public
 * addresses (unless allowed) and hands the socket only the checked ones, so DNS rebinding
 * between a check and the connect cannot happen. Literal IP hosts are checked before the request.
 * Redirects are followed by hand, each one checked again (scheme and address).
 */
export async function checkedGet(url: URL, options: CheckedGetOptions): Promise<CheckedResponse> {
  const maxRedirects = options.maxRedirects ?? 10;
  let current = url;
  for (let hop = 0; ; hop++) {
    if (current.protocol !== "http:" && current.protocol !== "https:") {
      throw new RefusedAddressError(current.href, `a redirect led to ${current.protocol}, which is not http or https`);
    }
    const host = bareHost(current.hostname);
    if (!options.allowPrivateAddresses && isIP(host) !== 0) {
      const reason = nonPublicAddressReason(host);
      if (reason !== undefined) throw new RefusedAddressError(host, reason);
    }
    const response = await request(current, options);
    const location = response.headers.location;
    if (!REDIRECTS.has(response.statusCode ?? 0) || location === undefined || options.followRedirects === false) {
      return {
        status: response.statusCode ?? 0,
        statusText: response.statusMessage ?? "",
        url: current.href,
        headers: response.headers,
        body: response,
      };
    }
    response.resume();
    if (hop >= maxRedirects) throw new TooManyRedirectsError(maxRedirects);
    current = new URL(location, current);
  }
}

function request(url: URL, options: CheckedGetOptions): Promise<IncomingMessage> {
  const client = url.protocol === "https:" ? https : http;
  return new Promise((resolve, reject) => {
    const outgoing = client.request(url, {
      method: "GET",
      signal: options.signal,
      lookup: checkedLookup(options.allowPrivateAddresses),
      headers: options.headers ?? { "user-agent": "agent-tool-catalog download" },
    });
    outgoing.once("response", resolve);
    outgoing.once("error", reject);
    outgoing.end();
  });
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A `lookup` for sockets that resolves every address and passes on only allowed ones. */
function checkedLookup(allowPrivate: boolean): LookupFunction {
  const lookup = (hostname: string, lookupOptions: LookupOptions, callback: LookupCallback) => {
    const family = typeof lookupOptions.family === "number" ? lookupOptions.family : 0;
    dnsLookup(hostname, { all: true, family }, (error, addresses) => {
      if (error !== null) {
        callback(error, []);
        return;
      }
      const allowed = allowPrivate ? addresses : addresses.filter((entry) => nonPublicAddressReason(entry.address) === undefined);
      if (allowed.length === 0) {
        const shown = addresses.map((entry) => entry.address).join(", ");
        callback(
          new RefusedAddressError(
            hostname,
            `${hostname} resolves only to non-public addresses (${shown})`,
          ) as NodeJS.ErrnoException,
          [],
        );
        return;
      }
      if (lookupOptions.all === true) callback(null, allowed);
      else callback(null, (allowed[0] as LookupAddress).address, (allowed[0] as LookupAddress).family);
    });
  };
  return lookup as LookupFunction;
}

function bareHost(hostname: string): string {
  return hostname.startsWith("[") && hostname.endsWith("]") ? hostname.slice(1, -1) : hostname;
}
