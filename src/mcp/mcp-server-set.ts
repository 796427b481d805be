import { ConfigurationError, EventBus } from "agent-tool-catalog";
import { countOf } from "../errors/count-of.js";
import type { McpEvents } from "./mcp-events.js";
import type { McpServerHandle, McpServerStatus } from "./mcp-server-handle.js";
import { isLossyMcpNamePart, sanitizeMcpNamePart } from "./mcp-tool-name.js";

/**
 * A name a model may spell a server with when it is not the exact name: ASCII letters and digits,
 * and only the separators sanitizing folds (space, `_`, `-`, `.`, `/`), so folding it loses case
 * and separators and nothing else.
 */
const FRIENDLY_NAME = /^[A-Za-z0-9 _./-]+$/;

/**
 * A server that could not be connected, and why.
 *
 * @public
 */
export interface McpServerFailure {
  /** The server's name. */
  readonly name: string;
  /** The error (usually an `McpConnectionError` with the server's stderr tail in `data`). */
  readonly error: unknown;
}

/**
 * The connected servers of one registry (named a set, not a group: a `ToolGroup` is something
 * else, a set of tools with an enabling condition), shared (run id `undefined`) or private to a run. The
 * resource tools and `connect_mcp` look servers up here, always through a run id, so a run never
 * reaches another run's server.
 * @public
 */
export class McpServerSet {
  /** Events of every server connected through this set. */
  readonly events: EventBus<McpEvents>;
  private readonly handles: McpServerHandle[] = [];
  private readonly failed: McpServerFailure[] = [];
  private readonly disposers: (() => unknown)[] = [];

  constructor(events: EventBus<McpEvents> = new EventBus<McpEvents>()) {
    this.events = events;
  }

  /** Servers that failed to connect when the set was built. */
  get failures(): readonly McpServerFailure[] {
    return this.failed;
  }

  /**
   * Adds a connected server.
   * @throws ConfigurationError when a server of that name is already in the same scope.
   */
  add(handle: McpServerHandle): void {
    this.prune();
    if (this.handles.some((other) => other.name === handle.name && other.runId === handle.runId)) {
      throw new ConfigurationError("duplicate_mcp_server", `An MCP server named "${handle.name}" is already connected here.`, {
        data: { name: handle.name, runId: handle.runId },
      });
    }
    this.handles.push(handle);
  }

  /** Records a server that could not be connected (see {@link McpServerSet.failures}). */
  addFailure(failure: McpServerFailure): void {
    this.failed.push(failure);
  }

  /**
   * The servers a run may use: the shared ones and its own. Without a run id: only the shared.
   */
  list(runId?: string): McpServerHandle[] {
    this.prune();
    return this.handles.filter((handle) => handle.runId === undefined || handle.runId === runId);
  }

  /**
   * A server a run may use, by its name; the run's own wins over a shared one. When no server has
   * that exact name, a friendly spelling finds it too: a name of letters, digits, spaces, `_`, `-`,
   * `.` and `/` only that sanitizes to the name the server's tools are made of (`My Docs`,
   * `my_docs` and `MY-DOCS` all name `my-docs`), if exactly one server has that sanitized name and
   * sanitizing its name lost no characters beyond the spec's `-`, `/`, `.` and space. So `日本`
   * and `中文` (both `__`) are named only by themselves: `__` or `中國` names neither, and
   * `my docs` names neither `my-docs` nor `my.docs` when both are connected.
   */
  get(name: string, runId?: string): McpServerHandle | undefined {
    const visible = this.list(runId);
    const exact = visible.filter((handle) => handle.name === name);
    if (exact.length > 0) return exact.find((handle) => handle.runId !== undefined) ?? exact[0];
    if (!FRIENDLY_NAME.test(name)) return undefined;
    const folded = sanitizeMcpNamePart(name);
    const matches = visible.filter((handle) => !isLossyMcpNamePart(handle.name) && sanitizeMcpNamePart(handle.name) === folded);
    return matches.length === 1 ? matches[0] : undefined;
  }

  /** The status of every open server. */
  status(): McpServerStatus[] {
    this.prune();
    return this.handles.map((handle) => handle.status);
  }

  /** Registers cleanup to run at {@link McpServerSet.close} (e.g. removing the resource tools). */
  addDisposer(dispose: () => unknown): void {
    this.disposers.push(dispose);
  }

  /** Closes every server of the set and runs its disposers. */
  async close(): Promise<void> {
    const handles = this.handles.splice(0);
    const disposers = this.disposers.splice(0);
    const results = await Promise.allSettled([
      ...handles.map((handle) => handle.close()),
      ...disposers.map(async (dispose) => dispose()),
    ]);
    const errors = results.flatMap((result) => (result.status === "rejected" ? [result.reason] : []));
    if (errors.length > 0) throw new AggregateError(errors, `${countOf(errors.length, "MCP server")} failed to close.`);
  }

  private prune(): void {
    for (let index = this.handles.length - 1; index >= 0; index--) {
      if (this.handles[index]?.status.state === "closed") this.handles.splice(index, 1);
    }
  }
}

/**
 * The former name of {@link McpServerSet}.
 * @deprecated Use `McpServerSet`; this alias will be removed in the next major version.
 * @public
 */
export const McpServerGroup = McpServerSet;
/**
 * @deprecated Use `McpServerSet`.
 *
 * @public
 */
export type McpServerGroup = McpServerSet;
