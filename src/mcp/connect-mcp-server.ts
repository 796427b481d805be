import type { Implementation } from "@modelcontextprotocol/sdk/types.js";
import { CatalogError, ConfigurationError, EventBus, type Registry, type Run } from "agent-tool-catalog";
import { checkNumberOption, MAX_TIMER_DELAY_MS } from "../errors/check-number-option.js";
import { ConnectedMcpServer } from "./connected-mcp-server.js";
import { type McpClientHandlers, workspaceRoots } from "./mcp-client-handlers.js";
import { McpConnectionError } from "./mcp-errors.js";
import type { McpEvents } from "./mcp-events.js";
import type { McpServerConfig } from "./mcp-server-config.js";
import type { McpServerHandle } from "./mcp-server-handle.js";
import { claimMcpServerName } from "./mcp-server-names.js";
import { resolveMcpServerConfig } from "./resolve-mcp-server-config.js";
import { createTransportDriver } from "./transports/create-transport-driver.js";

/**
 * Options of {@link connectMcpServer}.
 *
 * @public
 */
export interface ConnectMcpServerOptions {
  /**
   * Makes the server private to this run: its tools are registered with the run's id (other runs
   * never see them) and the server closes when the run closes.
   */
  readonly run?: Run;
  /**
   * Makes the tools private to the run with this id, without tying the lifetime to a `Run`
   * object: the host closes the handle (the registry still closes it at the end). Use `run` when
   * you have one.
   */
  readonly runId?: string;
  /**
   * Where the server's events go; pass one bus to several servers to watch them all.
   * @defaultValue a new bus per server
   */
  readonly events?: EventBus<McpEvents>;
  /**
   * How long to wait after `notifications/tools/list_changed` before listing again, so a burst
   * of notices causes one listing (notices during the wait join it; they do not restart it, so a
   * server that never stops sending them is still listed). A listing after a notice also waits
   * at least nine times the previous one's duration (at most 5 s), so a server sending them in a
   * loop costs the host about a tenth of its time. A number of ms from 0 to 2^31 - 1 (a longer
   * timer fires at once; `NaN` listed again after 1 ms).
   * @defaultValue 100
   */
  readonly listChangedDebounceMs?: number;
  /**
   * How the client introduces itself in `initialize`.
   * @defaultValue `{ name: "agent-tool-catalog", version: "0.1.0" }`
   */
  readonly clientInfo?: Implementation;
  /**
   * What the server may ask of the host: sampling, elicitation, roots. Each is declared to the
   * server only when given. With `run`, the roots default to the run's workspace (if it has one).
   */
  readonly client?: McpClientHandlers;
}

const DEFAULT_CLIENT_INFO: Implementation = { name: "agent-tool-catalog", version: "0.1.0" };
const DEFAULT_DEBOUNCE_MS = 100;

/**
 * Connects one MCP server and registers its tools as deferred tools named
 * `mcp_<server>_<tool>`. Resolves once the tools are in the registry. Tools the server lists
 * that cannot be registered (name collisions, broken schemas) are reported in `status.rejected`
 * and as `tool.rejected` events; the others are registered.
 *
 * @throws ConfigurationError for an invalid config, or `duplicate_mcp_server` when a server of
 *   that name (after sanitizing) is connected already where this one would be visible.
 * @throws McpConnectionError when the server cannot be reached or its first listing fails;
 *   nothing is registered and no process is left running.
 *
 * @example
 * ```ts
 * const github = await connectMcpServer(registry, { name: "github", url: "https://mcp.example.com/mcp" });
 * github.status.tools; // ["mcp_github_search_issues", ...]
 * ```
 * @public
 */
export async function connectMcpServer(
  registry: Registry,
  config: McpServerConfig,
  options: ConnectMcpServerOptions = {},
): Promise<McpServerHandle> {
  const server = resolveMcpServerConfig(config);
  const { run } = options;
  if (run !== undefined && options.runId !== undefined && run.id !== options.runId) {
    throw new ConfigurationError(
      "invalid_mcp_config",
      `connectMcpServer: runId "${options.runId}" is not the id of the run given.`,
      {
        data: { field: "runId" },
      },
    );
  }
  if (run?.closed === true) throw new CatalogError("run_closed", `Run ${run.id} is closed; no MCP server can join it.`);
  const runId = run?.id ?? options.runId;
  // Before anything starts: a second server under a taken name would only have every tool rejected.
  checkNumberOption(
    options.listChangedDebounceMs,
    "listChangedDebounceMs",
    { min: 0, max: MAX_TIMER_DELAY_MS },
    "connectMcpServer",
    "invalid_mcp_config",
  );
  const release = claimMcpServerName(registry, server.name, runId);
  const handle = new ConnectedMcpServer({
    registry,
    server,
    driver: createTransportDriver(server),
    runId,
    events: options.events ?? new EventBus<McpEvents>(),
    clientInfo: options.clientInfo ?? DEFAULT_CLIENT_INFO,
    listChangedDebounceMs: options.listChangedDebounceMs ?? DEFAULT_DEBOUNCE_MS,
    client: withRunRoots(options.client ?? {}, run),
  });
  handle.whenClosed(release);
  // Owners first: a registry or run closed while connecting stops the server too.
  handle.closeWith(registry);
  if (run !== undefined) handle.closeWith(run);
  try {
    await handle.start();
  } catch (error) {
    await handle.close();
    if (run !== undefined && isClosed(run))
      throw new CatalogError("run_closed", `Run ${run.id} closed while MCP server "${server.name}" was connecting.`);
    throw asConnectionError(error, server.name);
  }
  return handle;
}

function withRunRoots(handlers: McpClientHandlers, run: Run | undefined): McpClientHandlers {
  if (handlers.roots !== undefined || run === undefined) return handlers;
  const workspace = run.scope().permissions.workspace;
  return workspace === undefined ? handlers : { ...handlers, roots: workspaceRoots(workspace) };
}

// A function, so the compiler does not keep the narrowing of `run.closed` from before the await.
function isClosed(run: Run): boolean {
  return run.closed;
}

function asConnectionError(error: unknown, server: string): unknown {
  if (CatalogError.isInstance(error) && error.code === "mcp_connect_failed") return error;
  const message = error instanceof Error ? error.message : String(error);
  return new McpConnectionError(`MCP server "${server}" connected, but listing its tools failed: ${message}`, {
    cause: error,
    data: { server },
  });
}
