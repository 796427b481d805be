import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

/**
 * The `data` of the error response a transport stands in for a server's answer that is not a
 * JSON-RPC message (`result: null`, an `error` whose `code` is a string, both `result` and
 * `error`), so that `describeMcpFailure` tells it from any error the server itself sent.
 */
export class MalformedResponse {
  constructor(
    /** Why the answer is not a JSON-RPC response, for the model. */
    readonly reason: string,
  ) {}
}

/**
 * For a line that failed to parse as a JSON-RPC message: an error response to the request it
 * answers, when it is a JSON object with a string or number `id` and no `method` (a response,
 * not a request or notification of the server), else `undefined`. The SDK drops such a line
 * (reporting it to `onerror` only), so the request it answers waited for its whole timeout and
 * failed as `mcp_timeout`, saying the server did not answer when it had, wrongly.
 */
export function standInForMalformedResponse(line: string): JSONRPCMessage | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return undefined;
  const { id, method } = parsed as { id?: unknown; method?: unknown };
  if (method !== undefined || !((typeof id === "string" && id !== "") || (typeof id === "number" && Number.isInteger(id))))
    return undefined;
  return {
    jsonrpc: "2.0",
    id,
    error: {
      code: -32603,
      message: "The answer is not a valid JSON-RPC response.",
      data: new MalformedResponse(whatIsWrong(parsed as Record<string, unknown>)),
    },
  };
}

/** What is wrong with a response-shaped object, in a few words for the model. */
function whatIsWrong(response: Record<string, unknown>): string {
  const has = (key: string) => Object.hasOwn(response, key);
  if (response.jsonrpc !== "2.0") return `"jsonrpc" is not "2.0"`;
  if (has("result") && has("error")) return `it has both "result" and "error"`;
  if (has("result")) return `"result" is ${describe(response.result)}, not an object`;
  if (!has("error")) return `it has neither "result" nor "error"`;
  const error = response.error;
  if (typeof error !== "object" || error === null || Array.isArray(error)) return `"error" is ${describe(error)}, not an object`;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (!Number.isInteger(code)) return `"error.code" is ${describe(code)}, not an integer`;
  if (typeof message !== "string") return `"error.message" is ${describe(message)}, not a string`;
  return "an unknown shape";
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}
