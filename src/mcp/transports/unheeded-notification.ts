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
  return jsonrpc === "2.0" && id === undefined && method === TOOLS_LIST_CHANGED;
}

// The head of a notification as servers write it: `jsonrpc`, then `method`, then `params` or the end.
const NOTIFICATION_HEAD = /^\{\s*"jsonrpc"\s*:\s*"2\.0"\s*,\s*"method"\s*:\s*"([^"\\]*)"\s*(,\s*"params"\s*:\s*\{|\}\s*$)/;
const OBJECT_ENDS = /\}\s*\}\s*$/;
const KEY_OR_ESCAPE = /\\|"(?:id|jsonrpc|method|params)"/g;

/**
 * The method of a message's JSON text when it is, without parsing it, certainly a notification
 * (no `id`, `params` absent or an object); `undefined` means "parse it". Parsing cost most of a
 * dropped event's time over HTTP (100,000 progress notifications: ~1 s of host CPU). Certain
 * because the text has no backslash (so no escaped key, and every quote delimits a string), names
 * `jsonrpc`, `method` and `params` once each (no later duplicate overrides them) and `id` nowhere,
 * and `params`, when present, is an object closing the message. Text of this shape that is not
 * valid JSON passes as a notification too, where the SDK would have reported it as unparsable and
 * dropped it.
 */
export function notificationTextMethod(text: string): string | undefined {
  const head = NOTIFICATION_HEAD.exec(text);
  if (head === null) return undefined;
  const hasParams = (head[2] as string).startsWith(",");
  if (hasParams && !OBJECT_ENDS.test(text)) return undefined;
  // One scan: every backslash and quoted key name that matters, counted.
  let keys = 0;
  KEY_OR_ESCAPE.lastIndex = 0;
  for (let match = KEY_OR_ESCAPE.exec(text); match !== null; match = KEY_OR_ESCAPE.exec(text)) {
    if (match[0] === "\\" || match[0] === '"id"') return undefined;
    keys++;
  }
  return keys === (hasParams ? 3 : 2) ? head[1] : undefined;
}

/** Whether a notification's method is one nobody on the host acts on. */
export function isUnheededMethod(method: string): boolean {
  return !HEEDED.has(method);
}

/** The method of a `tools/list_changed` notification. */
export const TOOLS_LIST_CHANGED = "notifications/tools/list_changed";
