import type { ToolContext } from "agent-tool-catalog";
import type { WebFetcher, WebPage } from "./web-fetcher.js";

/**
 * Fetches `url` for a tool call (`web_fetch`, `agentic_fetch`): cancelled with the call, bounded
 * by its `timeout_seconds` when given, and, in a sandboxed run, refused for loopback, private and
 * other non-public addresses (a sandboxed run reaches no host service through the network;
 * neither does its fetch). One place, so the two tools cannot drift apart on that rule.
 */
export function fetchForCall(
  fetcher: WebFetcher,
  input: { readonly url: string; readonly timeout_seconds?: number | undefined },
  context: Pick<ToolContext, "signal" | "permissions">,
): Promise<WebPage> {
  return fetcher.fetch({
    url: input.url,
    signal: context.signal,
    timeoutMs: input.timeout_seconds === undefined ? undefined : input.timeout_seconds * 1000,
    allowPrivateAddresses: context.permissions.sandbox === "unrestricted",
  });
}
