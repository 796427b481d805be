/**
 * Why a tool of a server is not in the registry.
 *
 * @public
 */
export type McpRejectionReason =
  /** The entry is not a valid MCP tool (no name, wrong field types). */
  | "invalid_tool"
  /** Its `inputSchema` is not a JSON Schema object schema. */
  | "invalid_input_schema"
  /**
   * Its `outputSchema` is past the bounds of an input schema (1 Mi characters, 20,000 nodes, 64
   * levels, ...) or cannot compile: its results could not be held to it.
   */
  | "invalid_output_schema"
  /** Two or more tools of this server get the same registry name (e.g. `read-file` and `read.file`). */
  | "name_collision"
  /** The registry name is already taken by a tool from elsewhere (another server, a built-in). */
  | "name_taken"
  /**
   * The tool can only be called as a task (`execution.taskSupport: "required"`), which this client
   * does not do: every plain call of it fails, so the model is not offered it.
   */
  | "task_required";

/**
 * A tool the server lists that was not registered. The host sees these; the model does not.
 *
 * @public
 */
export interface McpRejectedTool {
  /** The tool's name on the server (clipped to 200 characters). */
  readonly mcpName: string;
  /** The registry name it would have had, when one was computed. */
  readonly name?: string;
  /** Why it was skipped. */
  readonly reason: McpRejectionReason;
  /** What exactly is wrong, in one sentence. */
  readonly message: string;
}

/**
 * Fields of every MCP event.
 *
 * @public
 */
export interface McpEventBase {
  /** The server's name. */
  readonly server: string;
  /** The run the server belongs to, or `undefined` for a server shared by every run. */
  readonly runId: string | undefined;
}

/**
 * Payload of `server.connected`.
 *
 * @public
 */
export interface McpServerConnectedEvent extends McpEventBase {
  /** False for the first connection, true when a lost server was started again. */
  readonly reconnect: boolean;
  /** The server process id (stdio). */
  readonly pid: number | undefined;
}

/**
 * Payload of `server.disconnected`: the connection was lost (crash, network), not closed by the host.
 *
 * @public
 */
export interface McpServerDisconnectedEvent extends McpEventBase {
  /** What happened, with the tail of the server's stderr when there is one. */
  readonly reason: string;
}

/**
 * Payload of `tools.refreshed`: the server's tools were listed and the registry brought in line.
 *
 * @public
 */
export interface McpToolsRefreshedEvent extends McpEventBase {
  /** Registry names added. */
  readonly added: readonly string[];
  /** Registry names removed. */
  readonly removed: readonly string[];
  /** Registry names whose definition changed. */
  readonly updated: readonly string[];
  /** Every tool of the server that is not registered, and why. */
  readonly rejected: readonly McpRejectedTool[];
}

/**
 * Payload of `tool.rejected`: a tool was skipped that was not skipped at the previous listing.
 *
 * @public
 */
export interface McpToolRejectedEvent extends McpEventBase {
  /** The tool and the reason. */
  readonly tool: McpRejectedTool;
}

/**
 * Payload of `refresh.failed`: listing the tools after a change notice failed; the old tools stay.
 *
 * @public
 */
export interface McpRefreshFailedEvent extends McpEventBase {
  /** The error code, e.g. `mcp_timeout`. */
  readonly code: string;
  /** What went wrong. */
  readonly message: string;
}

/**
 * Every MCP event, by type (noun-verb names, like the catalog's events).
 *
 * @public
 */
export interface McpEvents {
  /** A connection was established. */
  "server.connected": McpServerConnectedEvent;
  /** A connection was lost; the next call reconnects. */
  "server.disconnected": McpServerDisconnectedEvent;
  /** The host closed the server: its tools are gone. */
  "server.closed": McpEventBase;
  /** The tool list was read and applied. */
  "tools.refreshed": McpToolsRefreshedEvent;
  /** A tool is newly rejected (name collision, broken schema, ...). */
  "tool.rejected": McpToolRejectedEvent;
  /** A refresh failed. */
  "refresh.failed": McpRefreshFailedEvent;
}
