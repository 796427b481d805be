import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { McpTransportKind } from "../mcp-server-config.js";

/**
 * One connection's transport plus what the connection needs besides the SDK `Transport`: the
 * connection logic never looks at which kind it is (unstorage's driver pattern).
 * @public
 */
export interface McpTransportInstance {
  /** The SDK transport, not started yet. */
  readonly transport: Transport;
  /** The server process id, for transports that start one (stdio), once started. */
  pid(): number | undefined;
  /** The tail of the server's diagnostic output (stderr), for error messages; may be empty. */
  diagnostics(): string;
  /** Ends the session politely before the transport closes (HTTP `DELETE`); best effort. */
  terminate?(): Promise<void>;
  /**
   * True when `error` says the server no longer knows the session (HTTP 404 with a session id):
   * the request was never processed, so a new session may send it again.
   */
  sessionExpired?(error: unknown): boolean;
}

/**
 * Makes a fresh transport for every (re)connection to one server.
 *
 * @public
 */
export interface McpTransportDriver {
  /** The transport kind, for status and errors. */
  readonly kind: McpTransportKind;
  /** A new, unstarted transport. */
  create(): McpTransportInstance;
}
