import { CatalogError, type RegisteredToolHandle, type Registry } from "agent-tool-catalog";
import type { McpToolListing } from "./list-mcp-tools.js";
import { clip } from "./mcp-errors.js";
import type { McpRejectedTool } from "./mcp-events.js";
import { type McpToolCaller, mcpToolDefinition } from "./mcp-tool-definition.js";
import { planMcpToolNames } from "./plan-mcp-tool-names.js";

/**
 * One MCP tool in the registry.
 *
 * @public
 */
export interface McpRegisteredTool {
  /** Its registry name, `mcp_<server>_<tool>`. */
  readonly name: string;
  /** Its name on the server. */
  readonly mcpName: string;
  /** Its title, when the server gives one. */
  readonly title: string | undefined;
  /** Whether calls need approval under `approval: "destructive"`. */
  readonly mutating: boolean;
}

/**
 * What one application of a listing changed.
 *
 * @public
 */
export interface McpToolChanges {
  /** Registry names added. */
  readonly added: readonly string[];
  /** Registry names removed. */
  readonly removed: readonly string[];
  /** Registry names whose definition changed. */
  readonly updated: readonly string[];
  /** Tools of the listing that are not registered. */
  readonly rejected: readonly McpRejectedTool[];
}

/** Where a server's tools are registered. */
export interface McpToolSyncOptions {
  /** The server's name. */
  readonly server: string;
  /** Whether its annotations count. */
  readonly trusted: boolean;
  /** Time limit of compiling a tool's input schema, and of checking one call's arguments, ms. */
  readonly schemaTimeoutMs: number;
  /** The run that owns the tools, or `undefined` for every run. */
  readonly runId: string | undefined;
  /** How a call reaches the server. */
  readonly call: McpToolCaller;
}

interface Entry {
  readonly handle: RegisteredToolHandle;
  readonly info: McpRegisteredTool;
  readonly fingerprint: string;
}

/**
 * Keeps the registry in line with a server's tool list: registers new tools, updates changed
 * ones in place (so runs that activated them keep them), removes the ones that are gone.
 */
export class McpToolSync {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly registry: Registry,
    private readonly options: McpToolSyncOptions,
  ) {}

  /** The registered tools, in registration order. */
  tools(): McpRegisteredTool[] {
    return [...this.entries.values()].map((entry) => entry.info);
  }

  /** Applies a listing; tools it rejects are reported, never thrown. */
  apply(listing: McpToolListing): McpToolChanges {
    const { server, trusted, schemaTimeoutMs, call } = this.options;
    const plan = planMcpToolNames(server, listing.tools);
    const rejected: McpRejectedTool[] = [...listing.rejected, ...plan.rejected];
    const added: string[] = [];
    const updated: string[] = [];
    const keep = new Set<string>();
    for (const { name, tool } of plan.planned) {
      let built: ReturnType<typeof mcpToolDefinition>;
      try {
        built = mcpToolDefinition({ server, trusted, schemaTimeoutMs, tool, name, call });
      } catch (error) {
        const reason =
          CatalogError.isInstance(error) && error.code === "invalid_output_schema" ? error.code : "invalid_input_schema";
        rejected.push({ mcpName: clip(tool.name, 200), name, reason, message: messageOf(error) });
        continue;
      }
      const info: McpRegisteredTool = {
        name,
        mcpName: tool.name,
        title: built.definition.annotations?.title,
        mutating: built.definition.mutating === true,
      };
      const existing = this.entries.get(name);
      if (existing !== undefined) {
        keep.add(name);
        if (existing.fingerprint === built.fingerprint) continue;
        existing.handle.update(built.definition);
        this.entries.set(name, { handle: existing.handle, info, fingerprint: built.fingerprint });
        updated.push(name);
        continue;
      }
      const handle = this.register(built.definition, name, tool.name, rejected);
      if (handle === undefined) continue;
      this.entries.set(name, { handle, info, fingerprint: built.fingerprint });
      keep.add(name);
      added.push(name);
    }
    const removed = [...this.entries.keys()].filter((name) => !keep.has(name));
    for (const name of removed) this.remove(name);
    return { added, removed, updated, rejected };
  }

  /** Removes every tool of the server; returns their names. */
  clear(): string[] {
    const names = [...this.entries.keys()];
    for (const name of names) this.remove(name);
    return names;
  }

  private register(
    definition: ReturnType<typeof mcpToolDefinition>["definition"],
    name: string,
    mcpName: string,
    rejected: McpRejectedTool[],
  ): RegisteredToolHandle | undefined {
    const { runId, server } = this.options;
    try {
      return this.registry.register(
        definition,
        runId === undefined ? { group: `mcp:${server}` } : { group: `mcp:${server}`, runId },
      );
    } catch (error) {
      if (!CatalogError.isInstance(error) || error.code !== "duplicate_tool_name") throw error;
      rejected.push({
        mcpName: clip(mcpName, 200),
        name,
        reason: "name_taken",
        message: `The name "${name}" is already taken by another tool of the registry: ${error.message}`,
      });
      return undefined;
    }
  }

  private remove(name: string): void {
    this.entries.get(name)?.handle.remove();
    this.entries.delete(name);
  }
}

function messageOf(error: unknown): string {
  return clip(error instanceof Error ? error.message : String(error), 500);
}
