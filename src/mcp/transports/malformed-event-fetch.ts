import { standInForMalformedResponse } from "./malformed-response.js";
import {
  isToolsListChanged,
  isUnheededMethod,
  isUnheededNotification,
  notificationTextMethod,
  TOOLS_LIST_CHANGED,
} from "./unheeded-notification.js";

/**
 * Largest event data checked for a malformed response: a bound on the extra parse each event
 * costs. A malformed answer is small (`result: null`); a larger one still ends by the timeout.
 */
const MAX_CHECKED_DATA_CHARS = 64 * 1024;
// An event ends at a blank line; SSE allows "\r\n", "\n" and "\r" line ends.
const EVENT_END = /\r\n\r\n|\n\n|\r\r/g;
// An event that is a message type line or an id line, then one data line: the data's start. A data
// line cannot hold a line end, so the rest of such a body is the data.
const SINGLE_DATA_LINE = /^(?:(?:event: ?message|id:[^\r\n]*)\r?\n){0,2}data: ?(?=[^\r\n]*$)/;

/**
 * A `fetch` whose event-stream bodies have each event that is a malformed JSON-RPC response
 * (`result: null`, an `error` whose `code` is a string) replaced by an error response to the same
 * request (see `standInForMalformedResponse`). The SDK's streamable HTTP transport drops such an
 * event, so the call waited for its timeout and failed as `mcp_timeout`; now it fails at once with
 * `mcp_malformed_result`. Other bodies pass unchanged.
 *
 * Notifications nobody on the host acts on (progress, logging, resource updates, unknown methods)
 * are dropped here, before the SDK parses the stream, schema-checks and dispatches them, and a
 * chunk's `tools/list_changed` notifications are one: as the stdio transport does. A server
 * sending 100,000 of them during a call cost the host 3-7 s of CPU.
 */
export function malformedEventFetch(base: typeof fetch, options: EventFilterOptions = {}): typeof fetch {
  const standIns = options.standIns !== false;
  return async (input, init) => {
    const response = await base(input, init);
    if (response.body === null || !(response.headers.get("content-type") ?? "").includes("text/event-stream")) return response;
    const decoder = new TextDecoder();
    const encoder = new TextEncoder();
    // The unfinished event, kept as it came: searching or joining the whole of it for every chunk
    // would be quadratic in a large event's size.
    let parts: string[] = [];
    // The last characters of the unfinished event: an event end may straddle chunks.
    let tail = "";
    const take = (text: string, controller: TransformStreamDefaultController<Uint8Array>) => {
      const seen = { toolsChanged: false, standIns };
      const view = tail + text;
      EVENT_END.lastIndex = 0;
      let done = 0;
      let out = "";
      for (let match = EVENT_END.exec(view); match !== null; match = EVENT_END.exec(view)) {
        const start = done === 0 ? tailless(parts, tail.length) : "";
        out += checkedEvent(start + view.slice(done, match.index), match[0], seen);
        done = match.index + match[0].length;
      }
      if (done === 0) parts.push(text);
      else parts = [view.slice(done)];
      tail = view.slice(Math.max(done, view.length - 3));
      if (out !== "") controller.enqueue(encoder.encode(out));
    };
    const rewrite = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        take(decoder.decode(chunk, { stream: true }), controller);
      },
      flush(controller) {
        const rest = parts.join("") + decoder.decode();
        if (rest !== "") controller.enqueue(encoder.encode(rest));
      },
    });
    return new Response(response.body.pipeThrough(rewrite), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

/** The kept parts joined, without their last `cut` characters (searched again with the next chunk). */
function tailless(parts: readonly string[], cut: number): string {
  const joined = parts.join("");
  return joined.slice(0, joined.length - cut);
}

/** What {@link malformedEventFetch} does besides dropping unheeded notifications. */
export interface EventFilterOptions {
  /**
   * Replace malformed responses with error responses (the streamable HTTP transport; the legacy
   * SSE transport reports them itself). @defaultValue `true`
   */
  readonly standIns?: boolean;
}

/**
 * One event (`body`, then its blank-line `end`); nothing for a notification nobody acts on or a
 * repeated `tools/list_changed` (`seen` is the chunk's); its stand-in when it is a malformed response.
 */
function checkedEvent(body: string, end: string, seen: { toolsChanged: boolean; readonly standIns: boolean }): string {
  if (body.length > MAX_CHECKED_DATA_CHARS + 1024) return body + end;
  // Most events of a flood are one message line: checked without splitting or parsing.
  const single = SINGLE_DATA_LINE.exec(body);
  const method = single === null ? undefined : notificationTextMethod(body.slice(single[0].length));
  if (method !== undefined && isUnheededMethod(method)) return "";
  if (method === TOOLS_LIST_CHANGED && seen.toolsChanged) return "";
  const lines = body.split(/\r\n|\n|\r/);
  const data: string[] = [];
  const others: string[] = [];
  for (const line of lines) {
    if (line.startsWith("data:")) data.push(line.slice(line.startsWith("data: ") ? 6 : 5));
    else others.push(line);
  }
  const type = others.find((line) => line.startsWith("event:"));
  if (data.length === 0 || (type !== undefined && type.slice(6).trim() !== "message")) return body + end;
  const text = data.join("\n");
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return body + end;
  }
  if (isUnheededNotification(parsed)) return "";
  if (isToolsListChanged(parsed)) {
    if (seen.toolsChanged) return "";
    seen.toolsChanged = true;
    return body + end;
  }
  if (!seen.standIns) return body + end;
  const standIn = standInForMalformedResponse(text, true);
  if (standIn === undefined) return body + end;
  return [...others, `data: ${JSON.stringify(standIn)}`].join("\n") + end;
}
