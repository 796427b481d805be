import type { GetPromptResult, Prompt, ReadResourceResult, Resource } from "@modelcontextprotocol/sdk/types.js";
import type { EventBus } from "agent-tool-catalog";
import type { McpConnectionState } from "./mcp-connection.js";
import type { McpEvents, McpRejectedTool } from "./mcp-events.js";
import type { McpTransportKind } from "./mcp-server-config.js";
import type { McpRegisteredTool, McpToolChanges } from "./mcp-tool-sync.js";

/**
 * A snapshot of one server connection, for host dashboards and `/mcp` style commands.
 *
 * @public
 */
export interface McpServerStatus {
  /** The server's name. */
  readonly name: string;
  /** The run that owns it, or `undefined` when every run shares it. */
  readonly runId: string | undefined;
  /** How it is reached. */
  readonly transport: McpTransportKind;
  /** Whether its annotations count. */
  readonly trusted: boolean;
  /** Where the connection stands; `disconnected` servers reconnect on the next call. */
  readonly state: McpConnectionState;
  /** The server process id (stdio, while connected). */
  readonly pid: number | undefined;
  /** What the server says it is. */
  readonly serverInfo: { readonly name: string; readonly version: string } | undefined;
  /** Registry names of its tools. */
  readonly tools: readonly string[];
  /** Its tools that are not registered, and why (collisions, broken schemas). */
  readonly rejected: readonly McpRejectedTool[];
  /** True when its listing stopped at a limit. */
  readonly truncated: boolean;
  /** The last failure of a refresh or of the connection. */
  readonly lastError: { readonly code: string; readonly message: string } | undefined;
}

/**
 * Options of a resource listing.
 *
 * @public
 */
export interface McpListResourcesOptions {
  /** The cursor of the previous page. */
  readonly cursor?: string;
  /** Cancels the request. */
  readonly signal?: AbortSignal;
}

/**
 * One page of a server's prompts.
 *
 * @public
 */
export interface McpPromptPage {
  /** The prompts, with their arguments. */
  readonly prompts: readonly Prompt[];
  /** The cursor of the next page, if any. */
  readonly nextCursor: string | undefined;
}

/**
 * One page of a server's resources.
 *
 * @public
 */
export interface McpResourcePage {
  /** The resources. */
  readonly resources: readonly Resource[];
  /** The cursor of the next page, if any. */
  readonly nextCursor: string | undefined;
}

/**
 * A connected MCP server whose tools are in a registry. Closing it removes its tools and stops
 * the server (the process, for stdio); the registry (and the run, for a per-run server) closes it
 * too when it closes.
 * @public
 */
export interface McpServerHandle {
  /** The server's name. */
  readonly name: string;
  /** The owning run, or `undefined` for a server every run shares. */
  readonly runId: string | undefined;
  /** The server's events; shared with other servers when the host passed one bus. */
  readonly events: EventBus<McpEvents>;
  /** The current status. */
  readonly status: McpServerStatus;
  /** True when the server offers resources (`resources/list`, `resources/read`). */
  readonly supportsResources: boolean;
  /** The tools registered now. */
  tools(): readonly McpRegisteredTool[];
  /**
   * Lists the tools again and applies the difference to the registry (also done on
   * `notifications/tools/list_changed` and after a reconnect).
   * @throws ToolError when the listing fails; the registered tools stay as they were.
   */
  refresh(): Promise<McpToolChanges>;
  /** One page of the server's resources. @throws ToolError when the request fails. */
  listResources(options?: McpListResourcesOptions): Promise<McpResourcePage>;
  /** Reads one resource. @throws ToolError when the request fails. */
  readResource(uri: string, options?: { readonly signal?: AbortSignal }): Promise<ReadResourceResult>;
  /** True when the server offers prompts (`prompts/list`, `prompts/get`). */
  readonly supportsPrompts: boolean;
  /** One page of the server's prompts. @throws ToolError when the request fails. */
  listPrompts(options?: McpListResourcesOptions): Promise<McpPromptPage>;
  /** One prompt, filled in with `args`. @throws ToolError when the request fails. */
  getPrompt(
    name: string,
    args?: Readonly<Record<string, string>>,
    options?: { readonly signal?: AbortSignal },
  ): Promise<GetPromptResult>;
  /** Removes the tools and stops the server; waits until the process is gone. Idempotent. */
  close(): Promise<void>;
}
