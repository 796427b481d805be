import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { CatalogError, type CatalogErrorOptions, ToolError } from "agent-tool-catalog";
import { malformedResponseReason } from "./transports/malformed-response.js";
import { isTransportOverflow } from "./transports/transport-overflow.js";

/**
 * Thrown to the host when a server cannot be reached at all (the command does not start, the URL
 * does not answer, `initialize` fails or times out). `data` has `server`, `transport` and the
 * tail of the server's stderr (`diagnostics`), like execa's errors carry the output's tail.
 * @public
 */
export class McpConnectionError extends CatalogError {
  constructor(message: string, options: CatalogErrorOptions = {}) {
    super("mcp_connect_failed", message, options);
    this.name = "McpConnectionError";
  }
}

/** What a failed request was, for the message the model reads. */
export interface McpFailureContext {
  /** The server's name. */
  readonly server: string;
  /** What was asked, e.g. `tool "search"` or `resource "file:///a"`. */
  readonly subject: string;
  /** The call's timeout, ms. */
  readonly timeoutMs: number;
  /** The server's stderr tail, if any. */
  readonly diagnostics: string;
  /** True when the connection closed while the request was pending. */
  readonly connectionLost: boolean;
  /** The first error the transport reported on this connection (e.g. a message over the size limit). */
  readonly transportError: string | undefined;
  /**
   * True when the request's own deadline (`timeoutMs`, timed by the client beside the SDK's timer)
   * passed before it failed. Only then is a timeout error the SDK's: a server can answer with the
   * very error the SDK makes (`-32001 "Request timed out"`), so neither code nor text tells.
   */
  readonly deadlinePassed: boolean;
}

/** How a request failed, which decides whether the connection is still to be trusted. */
export interface McpFailure {
  /** The error for the model. */
  readonly error: ToolError;
  /** True when the server may be stuck or gone: check it before the next request. */
  readonly suspect: boolean;
}

const MAX_MESSAGE_LENGTH = 2000;

/** Turns whatever a request threw into a {@link ToolError} the model can act on. */
export function describeMcpFailure(error: unknown, context: McpFailureContext): McpFailure {
  const { server, subject } = context;
  if (context.connectionLost && isTransportOverflow(context.transportError)) {
    return {
      suspect: true,
      error: new ToolError(
        "mcp_output_too_large",
        `The MCP server "${server}" answered ${subject} with a message over the transport's size limit; the connection was reset.`,
        { hint: "Ask for less at once (a narrower query, a page, a smaller range).", cause: error },
      ),
    };
  }
  // Told by the transport's close (the SDK calls `onclose` before failing what was pending), never
  // by the error: a server answering `-32000 "Connection closed"` makes the SDK's very error.
  if (context.connectionLost) {
    return {
      suspect: true,
      error: new ToolError(
        "mcp_server_closed",
        `The MCP server "${server}" closed the connection during ${subject}${withDiagnostics(context.diagnostics)}`,
        { hint: "The server is restarted on the next call. Retry once if the call is safe to repeat.", cause: error },
      ),
    };
  }
  if (context.deadlinePassed && isLocalSdkError(error, ErrorCode.RequestTimeout, "Request timed out")) {
    return {
      suspect: true,
      error: new ToolError(
        "mcp_timeout",
        `The MCP server "${server}" did not answer ${subject} within ${Math.round(context.timeoutMs / 1000)} s.`,
        { hint: "Try a smaller request, or try again later; the server is checked before the next call.", cause: error },
      ),
    };
  }
  if (isSchemaError(error)) {
    return {
      suspect: false,
      error: new ToolError(
        "mcp_malformed_result",
        `The MCP server "${server}" answered ${subject} with something that is not a valid MCP result (${firstIssue(error)}).`,
        { hint: "This is a fault of the server, not of your input. Use another tool or tell the user.", cause: error },
      ),
    };
  }
  const malformed = error instanceof McpError ? malformedResponseReason(error.data) : undefined;
  if (malformed !== undefined) {
    return {
      suspect: false,
      error: new ToolError(
        "mcp_malformed_result",
        `The MCP server "${server}" answered ${subject} with something that is not a valid JSON-RPC response (${malformed}).`,
        { hint: "This is a fault of the server, not of your input. Use another tool or tell the user.", cause: error },
      ),
    };
  }
  if (error instanceof McpError) {
    return {
      suspect: false,
      error: new ToolError("mcp_server_error", `The MCP server "${server}" refused ${subject}: ${clip(error.message)}`, {
        hint: "Check the input against the tool's schema, then try again.",
        cause: error,
      }),
    };
  }
  const message = error instanceof Error ? error.message : String(error);
  return {
    suspect: true,
    error: new ToolError("mcp_request_failed", `The request to MCP server "${server}" for ${subject} failed: ${clip(message)}`, {
      hint: "The connection is checked and renewed before the next call; try again once.",
      cause: error,
    }),
  };
}

/**
 * Whether `error` has the shape of one the SDK makes itself (our timeout ran out). Necessary, not
 * sufficient: -32001 opens the JSON-RPC range servers use for their own errors, and a server can
 * send this very code and text (round 42), so the caller also checks what the client saw happen.
 */
function isLocalSdkError(error: unknown, code: ErrorCode, text: string): boolean {
  return error instanceof McpError && error.code === code && error.message === `MCP error ${code}: ${text}`;
}

/** The error for a server that could not be (re)started for a call. */
export function unavailableError(server: string, cause: unknown): ToolError {
  const message = cause instanceof Error ? cause.message : String(cause);
  return new ToolError("mcp_server_unavailable", `The MCP server "${server}" is not reachable: ${clip(message)}`, {
    hint: "Do not retry right away; use another tool or tell the user the server is down.",
    cause,
  });
}

/** The error for a server the host closed. */
export function closedError(server: string): ToolError {
  return new ToolError("mcp_server_closed", `The MCP server "${server}" was disconnected by the host.`, {
    hint: "Its tools are gone; use other tools.",
  });
}

function isSchemaError(error: unknown): error is { readonly issues: readonly unknown[] } {
  return typeof error === "object" && error !== null && Array.isArray((error as { issues?: unknown }).issues);
}

function firstIssue(error: { readonly issues: readonly unknown[] }): string {
  const issue = error.issues[0] as { path?: unknown; message?: unknown } | undefined;
  if (issue === undefined) return "unknown shape";
  const path = Array.isArray(issue.path) && issue.path.length > 0 ? `${issue.path.map(String).join(".")}: ` : "";
  return clip(`${path}${String(issue.message)}`, 300);
}

function withDiagnostics(diagnostics: string): string {
  return diagnostics === "" ? "." : `. Its last output:\n${clip(diagnostics, 1000)}`;
}

/** Shortens a server-provided message: a hostile server must not flood the model through errors. */
export function clip(text: string, limit = MAX_MESSAGE_LENGTH): string {
  return text.length <= limit ? text : `${text.slice(0, limit)}... [${text.length - limit} more characters]`;
}
