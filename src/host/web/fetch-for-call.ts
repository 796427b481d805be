import { type ToolContext, ToolError } from "agent-tool-catalog";
import { boundedWait } from "../shared/bounded-wait.js";
import type { WebFetcher, WebPage } from "./web-fetcher.js";

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
 * promises to give up. Past it, and a second's grace ({@link boundedWait}, as the subagent and
 * workflow waits), the call fails with `timeout`. Without `timeout_seconds` the same backstop
 * applies at the largest limit the model may set (120 s).
 */
export async function fetchForCall(
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
  // The fetcher's own timeout error (which may say more) comes first when it keeps the limit:
  // boundedWait gives up only a second past it.
  const page = await boundedWait(fetching, limitMs);
  if (page !== undefined) return page;
  throw new ToolError("timeout", `Fetching ${input.url} took longer than ${limitMs / 1000} s.`, {
    hint: "Try again later, or with a larger timeout_seconds.",
  });
}
