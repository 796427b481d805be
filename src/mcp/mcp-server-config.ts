import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";

/**
 * Options every MCP server config has, whatever its transport.
 *
 * @public
 */
export interface McpServerOptions {
  /**
   * The server's name: the `<server>` of `mcp_<server>_<tool>`, and the tag `mcp_server:<name>`.
   * It is sanitized like tool names, so any non-empty string works.
   */
  readonly name: string;
  /**
   * The host vouches for this server. Only then do its tool annotations count: a `readOnlyHint`
   * from an untrusted server could be a lie that skips approval, so it is ignored.
   * @defaultValue `false`
   */
  readonly trusted?: boolean;
  /**
   * How long one call (or listing) may take before it fails with `mcp_timeout`, in ms: above 0 and
   * at most 2^31 - 1 (Node fires a longer timer at once).
   * @defaultValue 60000
   */
  readonly timeoutMs?: number;
  /**
   * How long compiling one tool's input schema, and then checking one call's arguments against
   * it, may each take, in ms. Both run in a worker thread, never on the host's thread: a schema
   * built to make the validator slow fails its calls with `input_schema_too_slow` instead of
   * blocking the host. Counted in the thread's CPU time where it can be measured (Linux), so a
   * loaded machine does not use the budget, with ten times it in wall time as the bound on a
   * thread that cannot get a CPU; wall time elsewhere. Above 0 and at most 2^31 - 1 ms.
   * @defaultValue 5000
   */
  readonly schemaTimeoutMs?: number;
  /**
   * How long connecting (start, initialize, first tool list) may take, in ms: above 0 and at most
   * 2^31 - 1.
   * @defaultValue 30000
   */
  readonly connectTimeoutMs?: number;
  /**
   * Largest output of one call that reaches the model, in UTF-8 bytes: a whole number at least 1
   * (as `createConnectMcpTool`'s and the resource and prompt tools'); more is cut to head and tail
   * with a marker. The run's own condensing applies after this.
   * @defaultValue 100000
   */
  readonly maxOutputBytes?: number;
  /**
   * Most decoded bytes of images, audio and binary resources one result passes on as content
   * parts (for vision models): a whole number at least 0 (a fraction is refused, not floored to 0);
   * a block that does not fit, or every block when 0, is described in text instead. The run's own
   * `maxBinaryBytes` applies after this.
   * @defaultValue 5242880 (5 MiB)
   */
  readonly maxBinaryBytes?: number;
}

/**
 * A server started as a child process that speaks MCP on stdin/stdout.
 *
 * @public
 */
export interface McpStdioServerConfig extends McpServerOptions {
  /** The executable, e.g. `"npx"` or `process.execPath`. Not run through a shell. */
  readonly command: string;
  /** Its arguments. */
  readonly args?: readonly string[];
  /**
   * Extra environment variables, added to the SDK's small safe default set (`HOME`, `PATH`, ...):
   * the host's secrets are not handed to every server.
   */
  readonly env?: Readonly<Record<string, string>>;
  /** Working directory of the process. @defaultValue the host's working directory */
  readonly cwd?: string;
  readonly url?: never;
  readonly transport?: never;
}

/**
 * A server reached over streamable HTTP (the current MCP HTTP transport).
 *
 * @public
 */
export interface McpHttpServerConfig extends McpServerOptions {
  /** The endpoint, `http:` or `https:`. */
  readonly url: string;
  /** Headers sent with every request (e.g. `Authorization`). */
  readonly headers?: Readonly<Record<string, string>>;
  /**
   * OAuth for a server that requires it: the MCP SDK's `OAuthClientProvider`, e.g.
   * `createStoredMcpOAuthProvider({ serverUrl, store, redirectUrl, onAuthorizationUrl })`. The SDK
   * sends the token, refreshes it on a 401, and starts an authorization when there is none.
   */
  readonly auth?: OAuthClientProvider;
  /** Streamable HTTP. @defaultValue `"http"` */
  readonly transport?: "http";
  readonly command?: never;
}

/**
 * A server reached over the legacy HTTP+SSE transport (MCP 2024-11-05).
 *
 * @public
 */
export interface McpSseServerConfig extends McpServerOptions {
  /** The SSE endpoint, `http:` or `https:`. */
  readonly url: string;
  /** Headers sent with every request. */
  readonly headers?: Readonly<Record<string, string>>;
  /**
   * OAuth for a server that requires it: the MCP SDK's `OAuthClientProvider`, e.g.
   * `createStoredMcpOAuthProvider({ serverUrl, store, redirectUrl, onAuthorizationUrl })`. The SDK
   * sends the token, refreshes it on a 401, and starts an authorization when there is none.
   */
  readonly auth?: OAuthClientProvider;
  /** Selects the legacy SSE transport. */
  readonly transport: "sse";
  readonly command?: never;
}

/**
 * A server behind any SDK `Transport` the host builds (a websocket, an in-memory pair, a
 * sandboxed process). The factory is called for every (re)connection and must return a new,
 * unstarted transport.
 * @public
 */
export interface McpCustomServerConfig extends McpServerOptions {
  /** Makes a fresh transport. */
  readonly transport: () => Transport;
  readonly command?: never;
  readonly url?: never;
}

/**
 * How to reach one MCP server.
 *
 * @public
 */
export type McpServerConfig = McpStdioServerConfig | McpHttpServerConfig | McpSseServerConfig | McpCustomServerConfig;

/**
 * The transport kinds, as reported in a server's status.
 *
 * @public
 */
export type McpTransportKind = "stdio" | "http" | "sse" | "custom";

/** The transport kind a config selects. */
export function transportKindOf(config: McpServerConfig): McpTransportKind {
  if (typeof config.transport === "function") return "custom";
  if (typeof config.command === "string") return "stdio";
  return config.transport === "sse" ? "sse" : "http";
}
