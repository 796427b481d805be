import { type ToolContext, ToolError } from "agent-tool-catalog";
import type { WebFetcher, WebPage } from "./web-fetcher.js";

/**
 * How long after `timeout_seconds` the call gives up on a fetcher that has not: the fetcher's
 * own timeout error (which may say more) comes first when it keeps the limit.
 */
const BACKSTOP_GRACE_MS = 1000;

/**
 * The backstop when the model set no `timeout_seconds`: the largest limit it may set. The host's
 * fetcher keeps its own default (20 s for `HttpWebFetcher`, longer if the host configured
 * one), which this does not cut; it only ends a fetcher that never settles.
 */
const UNSET_TIMEOUT_BACKSTOP_MS = 120_000;

/**
 * Fetches `url` for a tool call (`web_fetch`, `agentic_fetch`): cancelled with the call, bounded
 * by its `timeout_seconds` when given, and, in a sandboxed run, refused for loopback, private and
 * other non-public addresses (a sandboxed run reaches no host service through the network;
 * neither does its fetch). One place, so the two tools cannot drift apart on that rule.
 *
 * The limit the model set is kept here too, not only by the fetcher: a host's fetcher that ignores
 * `timeoutMs` and its signal held the call (and the model's step) for ever, although the tool
 * promises to give up. Past it, and a short grace, the call fails with `timeout`. Without
 * `timeout_seconds` the same backstop applies at the largest limit the model may set (120 s).
 */
export function fetchForCall(
  fetcher: WebFetcher,
  input: { readonly url: string; readonly timeout_seconds?: number | undefined },
  context: Pick<ToolContext, "signal" | "permissions">,
): Promise<WebPage> {
  const timeoutMs = input.timeout_seconds === undefined ? undefined : input.timeout_seconds * 1000;
  const fetching = fetcher.fetch({
    url: input.url,
    signal: context.signal,
    timeoutMs,
    allowPrivateAddresses: context.permissions.sandbox === "unrestricted",
  });
  const limitMs = timeoutMs ?? UNSET_TIMEOUT_BACKSTOP_MS;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const backstop = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new ToolError("timeout", `Fetching ${input.url} took longer than ${limitMs / 1000} s.`, {
            hint: "Try again later, or with a larger timeout_seconds.",
          }),
        ),
      limitMs + BACKSTOP_GRACE_MS,
    );
  });
  return Promise.race([fetching, backstop]).finally(() => clearTimeout(timer));
}
