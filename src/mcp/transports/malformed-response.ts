import { randomUUID } from "node:crypto";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

// Marks the stand-in error in its `data`. Random per process: the stand-in crosses a text stream
// (an HTTP event), so it cannot be told apart by identity, and a server cannot guess the mark.
const MARK_KEY = "agentToolCatalogMalformedResponse";
const MARK = randomUUID();

/**
 * Why an answer was not a JSON-RPC response, when `data` (an MCP error's) is that of the stand-in
 * a transport answered the request with; otherwise `undefined`, so that `describeMcpFailure` tells
 * it from any error the server itself sent.
 */
export function malformedResponseReason(data: unknown): string | undefined {
  if (typeof data !== "object" || data === null) return undefined;
  const { [MARK_KEY]: mark, reason } = data as Record<string, unknown>;
  return mark === MARK && typeof reason === "string" ? reason : undefined;
}

/**
 * For a text that did not parse as a JSON-RPC message (a stdio line, an event's data): an error
 * response to the request it answers, when it is a JSON object with a string or integer `id` and
 * no `method` (a response, not a request or notification of the server), else `undefined`. The
 * SDK drops such a message (reporting it to `onerror` only), so the request it answers waited for
 * its whole timeout and failed as `mcp_timeout`, saying the server did not answer when it had,
 * wrongly. With `onlyIfMalformed`, a well-formed response gives `undefined` too.
 */
export function standInForMalformedResponse(text: string, onlyIfMalformed = false): JSONRPCMessage | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return undefined;
  const { id, method } = parsed as { id?: unknown; method?: unknown };
  if (method !== undefined || !((typeof id === "string" && id !== "") || (typeof id === "number" && Number.isInteger(id))))
    return undefined;
  const wrong = whatIsWrong(parsed as Record<string, unknown>);
  if (wrong === undefined && onlyIfMalformed) return undefined;
  return {
    jsonrpc: "2.0",
    id,
    error: {
      code: -32603,
      message: "The answer is not a valid JSON-RPC response.",
      data: { [MARK_KEY]: MARK, reason: wrong ?? "an unknown shape" },
    },
  };
}

// The members of a JSON-RPC 2.0 response object (the spec's section 5).
const RESPONSE_MEMBERS = new Set(["jsonrpc", "id", "result", "error"]);

/** What is wrong with a response-shaped object, in a few words for the model; `undefined`: nothing. */
function whatIsWrong(response: Record<string, unknown>): string | undefined {
  const has = (key: string) => Object.hasOwn(response, key);
  if (response.jsonrpc !== "2.0") return `"jsonrpc" is not "2.0"`;
  // The SDK's response schemas are strict (as the MCP schema's): an extra member makes the SDK drop
  // the whole answer, so it is named here rather than waited out.
  const extra = Object.keys(response).find((key) => !RESPONSE_MEMBERS.has(key));
  if (extra !== undefined) return `it has a member ${JSON.stringify(extra.slice(0, 40))} a JSON-RPC response does not have`;
  if (has("result") && has("error")) return `it has both "result" and "error"`;
  if (has("result")) return isObject(response.result) ? undefined : `"result" is ${describe(response.result)}, not an object`;
  if (!has("error")) return `it has neither "result" nor "error"`;
  const error = response.error;
  if (!isObject(error)) return `"error" is ${describe(error)}, not an object`;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (!Number.isInteger(code)) return `"error.code" is ${describe(code)}, not an integer`;
  if (typeof message !== "string") return `"error.message" is ${describe(message)}, not a string`;
  return undefined;
}

function isObject(value: unknown): boolean {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}
