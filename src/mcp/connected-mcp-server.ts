import {
  CallToolResultSchema,
  type GetPromptResult,
  type Implementation,
  type ReadResourceResult,
} from "@modelcontextprotocol/sdk/types.js";
import { CatalogError, type EventBus, type Registry, type ToolContent, type ToolContext } from "agent-tool-catalog";
import { deepFreeze } from "../tool/frozen-copy.js";
import { checkResultDepth } from "./check-result-depth.js";
import { checkStructuredContent } from "./check-structured-content.js";
import { cutToBytes } from "./cut-to-bytes.js";
import type { McpToolResultContent } from "./format-mcp-result.js";
import { listMcpTools } from "./list-mcp-tools.js";
import type { McpClientHandlers } from "./mcp-client-handlers.js";
import { McpConnection, type McpConnectionListener } from "./mcp-connection.js";
import { clip } from "./mcp-errors.js";
import type { McpEvents, McpRejectedTool } from "./mcp-events.js";
import { mcpResultContent } from "./mcp-result-content.js";
import type {
  McpListResourcesOptions,
  McpPromptPage,
  McpResourcePage,
  McpServerHandle,
  McpServerStatus,
} from "./mcp-server-handle.js";
import type { McpOutputCheck } from "./mcp-tool-definition.js";
import { type McpRegisteredTool, type McpToolChanges, McpToolSync } from "./mcp-tool-sync.js";
import type { ResolvedMcpServerConfig } from "./resolve-mcp-server-config.js";
import type { McpTransportDriver } from "./transports/mcp-transport.js";

/** What a {@link ConnectedMcpServer} is built from. */
export interface ConnectedMcpServerOptions {
  readonly registry: Registry;
  readonly server: ResolvedMcpServerConfig;
  readonly driver: McpTransportDriver;
  readonly runId: string | undefined;
  readonly events: EventBus<McpEvents>;
  readonly clientInfo: Implementation;
  readonly listChangedDebounceMs: number;
  readonly client: McpClientHandlers;
}

/** The implementation of {@link McpServerHandle}; built by `connectMcpServer`. */
export class ConnectedMcpServer implements McpServerHandle {
  readonly name: string;
  readonly runId: string | undefined;
  readonly events: EventBus<McpEvents>;
  private readonly server: ResolvedMcpServerConfig;
  private readonly connection: McpConnection;
  private readonly sync: McpToolSync;
  private readonly disposers: (() => void)[] = [];
  private readonly closedTasks: (() => void)[] = [];
  private rejected: readonly McpRejectedTool[] = [];
  private truncated = false;
  private lastError: { code: string; message: string } | undefined;
  private refreshing: Promise<unknown> = Promise.resolve();
  private debounce: ReturnType<typeof setTimeout> | undefined;
  /** A `list_changed` refresh is waiting (debounce, pace, or the refresh in flight): the one pending. */
  private pending = false;
  /** When the last listing refresh ended, and how long it took (ms): paces `list_changed`. */
  private lastRefresh = { endedAt: 0, tookMs: 0 };
  private closing: Promise<void> | undefined;

  constructor(private readonly options: ConnectedMcpServerOptions) {
    this.server = options.server;
    this.name = options.server.name;
    this.runId = options.runId;
    this.events = options.events;
    this.connection = new McpConnection(
      options.server,
      options.driver,
      options.clientInfo,
      this.listener(),
      options.client,
      options.runId,
    );
    this.sync = new McpToolSync(options.registry, {
      server: this.name,
      trusted: this.server.trusted,
      schemaTimeoutMs: this.server.schemaTimeoutMs,
      runId: this.runId,
      call: (mcpName, input, context, checkOutput) => this.callTool(mcpName, input, context, checkOutput),
    });
  }

  get status(): McpServerStatus {
    const info = this.connection.connectedClient?.getServerVersion();
    return {
      name: this.name,
      runId: this.runId,
      transport: this.options.driver.kind,
      trusted: this.server.trusted,
      state: this.connection.state,
      pid: this.connection.pid,
      serverInfo: info === undefined ? undefined : { name: info.name, version: info.version },
      tools: this.sync.tools().map((tool) => tool.name),
      rejected: this.rejected,
      truncated: this.truncated,
      lastError: this.lastError,
    };
  }

  get supportsResources(): boolean {
    return this.connection.connectedClient?.getServerCapabilities()?.resources !== undefined;
  }

  /** Ties the server's lifetime to an owner (registry, run): it closes with it. */
  closeWith(owner: { addDisposer(dispose: () => unknown): () => void }): void {
    this.disposers.push(owner.addDisposer(() => this.close()));
  }

  /** Runs `task` once the server is closed (after its tools are removed). */
  whenClosed(task: () => void): void {
    this.closedTasks.push(task);
  }

  /** Connects and registers the tools; on failure nothing stays registered or running. */
  async start(): Promise<void> {
    await this.connection.open();
    await this.refresh();
  }

  tools(): readonly McpRegisteredTool[] {
    return this.sync.tools();
  }

  refresh(): Promise<McpToolChanges> {
    return this.queueRefresh(false);
  }

  /** Runs a refresh after the ones queued; `paced`: one for `list_changed`, whose cost paces the next. */
  private queueRefresh(paced: boolean): Promise<McpToolChanges> {
    const next = this.refreshing.catch(() => undefined).then(() => this.refreshNow(paced));
    this.refreshing = next;
    return next;
  }

  async listResources(options: McpListResourcesOptions = {}): Promise<McpResourcePage> {
    const result = await this.connection.request({ signal: options.signal, subject: "resources/list" }, (client, request) =>
      client.listResources(options.cursor === undefined ? {} : { cursor: options.cursor }, request),
    );
    return { resources: result.resources, nextCursor: result.nextCursor };
  }

  readResource(uri: string, options: { readonly signal?: AbortSignal } = {}): Promise<ReadResourceResult> {
    return this.connection.request(
      { signal: options.signal, subject: `resource ${JSON.stringify(clip(uri, 200))}` },
      (client, request) => client.readResource({ uri }, request),
    );
  }

  get supportsPrompts(): boolean {
    return this.connection.connectedClient?.getServerCapabilities()?.prompts !== undefined;
  }

  async listPrompts(options: McpListResourcesOptions = {}): Promise<McpPromptPage> {
    const result = await this.connection.request({ signal: options.signal, subject: "prompts/list" }, (client, request) =>
      client.listPrompts(options.cursor === undefined ? {} : { cursor: options.cursor }, request),
    );
    return { prompts: result.prompts, nextCursor: result.nextCursor };
  }

  getPrompt(
    name: string,
    args: Readonly<Record<string, string>> = {},
    options: { readonly signal?: AbortSignal } = {},
  ): Promise<GetPromptResult> {
    return this.connection.request(
      { signal: options.signal, subject: `prompt ${JSON.stringify(clip(name, 200))}` },
      (client, request) => client.getPrompt({ name, arguments: { ...args } }, request),
    );
  }

  close(): Promise<void> {
    this.closing ??= this.closeNow();
    return this.closing;
  }

  private async closeNow(): Promise<void> {
    clearTimeout(this.debounce);
    for (const dispose of this.disposers.splice(0)) dispose();
    this.sync.clear();
    await this.connection.close();
    for (const task of this.closedTasks.splice(0)) task();
    this.events.emit("server.closed", Object.freeze({ server: this.name, runId: this.runId }));
  }

  private async refreshNow(paced: boolean): Promise<McpToolChanges> {
    if (this.closing !== undefined) return { added: [], removed: [], updated: [], rejected: [] };
    if (!paced) return this.applyListing();
    // Not the first listing: registering every tool costs more than a refresh, and would hold
    // the first change back for no reason.
    const startedAt = performance.now();
    try {
      return await this.applyListing();
    } finally {
      const endedAt = performance.now();
      this.lastRefresh = { endedAt, tookMs: endedAt - startedAt };
    }
  }

  private async applyListing(): Promise<McpToolChanges> {
    const listing = await this.connection.request({ subject: "tools/list" }, (client, request) => listMcpTools(client, request));
    if (this.closing !== undefined) return { added: [], removed: [], updated: [], rejected: [] };
    // Frozen: the events hand these very arrays out, and `status.rejected` keeps reading them.
    const changes = deepFreeze(this.sync.apply(listing));
    const before = new Set(this.rejected.map(rejectionKey));
    this.rejected = changes.rejected;
    this.truncated = listing.truncated;
    for (const tool of changes.rejected) {
      if (!before.has(rejectionKey(tool)))
        this.events.emit("tool.rejected", Object.freeze({ server: this.name, runId: this.runId, tool }));
    }
    this.events.emit("tools.refreshed", Object.freeze({ server: this.name, runId: this.runId, ...changes }));
    return changes;
  }

  private scheduleRefresh(): void {
    // One refresh pending at a time: it lists after every notification before it. Restarting the
    // wait on each notification starved the refresh of a server that never stops sending them.
    if (this.closing !== undefined || this.pending) return;
    this.pending = true;
    this.waitThen(this.options.listChangedDebounceMs);
  }

  private waitThen(ms: number): void {
    this.debounce = setTimeout(() => {
      this.debounce = undefined;
      void this.refreshWhenPaced();
    }, ms);
    this.debounce.unref?.();
  }

  /**
   * Paced so refreshes take at most about a tenth of the time: a server sending list_changed in a
   * loop with 5,000 tools kept the host's thread 45-80% busy re-listing them. The pause is counted
   * when the wait ends, from the refresh running or last ended: counted when the notice came, from
   * the last refresh that had ended, a notice during a refresh queued the next one straight after
   * it (refreshes in back-to-back pairs, or end to end when they are slow).
   */
  private async refreshWhenPaced(): Promise<void> {
    // A refresh in flight (paced, or the host's `refresh()`) sets the pace when it ends.
    let running: Promise<unknown>;
    do {
      running = this.refreshing;
      await running.catch(() => undefined);
    } while (running !== this.refreshing);
    if (this.closing !== undefined) return;
    const { endedAt, tookMs } = this.lastRefresh;
    const left = endedAt + Math.min(REFRESH_PACE * tookMs, MAX_PACE_MS) - performance.now();
    if (left > 0) return this.waitThen(left);
    // From here a notice schedules the next refresh: this one may list before its change.
    this.pending = false;
    this.queueRefresh(true).catch((error: unknown) => {
      const code = CatalogError.isInstance(error) ? error.code : "mcp_refresh_failed";
      const message = error instanceof Error ? error.message : String(error);
      this.lastError = { code, message };
      this.events.emit("refresh.failed", Object.freeze({ server: this.name, runId: this.runId, code, message }));
    });
  }

  private async callTool(
    mcpName: string,
    input: Record<string, unknown>,
    context: ToolContext,
    checkOutput: McpOutputCheck | undefined,
  ): Promise<string | ToolContent> {
    const result = await this.connection.request(
      { signal: context.signal, subject: `tool "${clip(mcpName, 80)}"` },
      (client, request) => client.callTool({ name: mcpName, arguments: input }, CallToolResultSchema, request),
    );
    // First: everything below serializes, checks or copies the result recursively.
    checkResultDepth(result, { server: this.name, tool: mcpName });
    // With CallToolResultSchema the SDK always gives `content`; the legacy `toolResult` shape is JSON.
    if (!hasContent(result)) return cutToBytes(JSON.stringify(result) ?? "", this.server.maxOutputBytes);
    if (checkOutput !== undefined && result.isError !== true) {
      await checkStructuredContent(result.structuredContent, checkOutput, { server: this.name, tool: mcpName });
    }
    return mcpResultContent(result, {
      server: this.name,
      tool: mcpName,
      maxOutputBytes: this.server.maxOutputBytes,
      maxBinaryBytes: this.server.maxBinaryBytes,
    });
  }

  private listener(): McpConnectionListener {
    return {
      toolsChanged: () => this.scheduleRefresh(),
      connected: (reconnect) => {
        this.events.emit(
          "server.connected",
          Object.freeze({ server: this.name, runId: this.runId, reconnect, pid: this.connection.pid }),
        );
        // The restarted server may list other tools than the one that was lost.
        if (reconnect) this.scheduleRefresh();
      },
      disconnected: (reason) => {
        this.lastError = { code: "mcp_server_closed", message: reason };
        this.events.emit("server.disconnected", Object.freeze({ server: this.name, runId: this.runId, reason }));
      },
    };
  }
}

/**
 * A refresh after `list_changed` starts at least this many times the last one's duration (wall
 * time, from the request to the tools applied) after it ended: a flood then costs at most a tenth
 * of the time. Wall time and not the host's CPU: the refresh awaits the server between its
 * steps, and the thread's CPU over that span counts every run's work done meanwhile; its wall time
 * only overstates the refresh's own cost (most of it waiting for a CPU on a loaded machine), so the
 * pause errs long.
 */
const REFRESH_PACE = 9;
/**
 * ...but never more than this (ms): a real change must land within about a minute. The cap binds
 * only for refreshes over 6.7 s (4,000 tools on a machine at load 40: 7.7 s measured), and a
 * flood of those costs 7.7/67.7, about a ninth, of the time; at the former 5 s cap any refresh
 * over 0.55 s got less than nine times its length of rest.
 */
const MAX_PACE_MS = 60_000;

function hasContent(result: object): result is McpToolResultContent {
  return Array.isArray((result as { content?: unknown }).content);
}

function rejectionKey(tool: McpRejectedTool): string {
  return `${tool.reason}\u0000${tool.mcpName}`;
}
