/**
 * Notifications the host acts on: `McpConnection` handles `tools/list_changed`, the SDK
 * `notifications/cancelled`. Progress is not among them: the host never sends a progress token,
 * so every `notifications/progress` names a token the client does not know, and the SDK would
 * build an `Error` quoting the whole notification for each one.
 */
const HEEDED = new Set(["notifications/tools/list_changed", "notifications/cancelled"]);

/**
 * Whether a parsed JSON-RPC message is a notification nobody on the host acts on (progress,
 * logging, resource updates, unknown methods). Such a message is counted and dropped before the
 * SDK's schema check and dispatch, which cost most of the ~20 µs a notification took: a server
 * sending 100,000 of them during a call kept the host busy for 2-3 s.
 */
export function isUnheededNotification(message: unknown): boolean {
  if (typeof message !== "object" || message === null || Array.isArray(message)) return false;
  const { jsonrpc, id, method, params } = message as { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: unknown };
  // Anything else of the wrong shape still goes to the schema check, which reports it.
  const plainParams = params === undefined || (typeof params === "object" && params !== null && !Array.isArray(params));
  return jsonrpc === "2.0" && id === undefined && typeof method === "string" && plainParams && !HEEDED.has(method);
}

/** Whether a parsed message is a plain `notifications/tools/list_changed` (no id). */
export function isToolsListChanged(message: unknown): boolean {
  if (typeof message !== "object" || message === null || Array.isArray(message)) return false;
  const { jsonrpc, id, method } = message as { jsonrpc?: unknown; id?: unknown; method?: unknown };
  return jsonrpc === "2.0" && id === undefined && method === "notifications/tools/list_changed";
}
