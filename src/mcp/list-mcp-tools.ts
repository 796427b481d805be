import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { RequestOptions } from "@modelcontextprotocol/sdk/shared/protocol.js";
import { ResultSchema, type Tool, ToolSchema } from "@modelcontextprotocol/sdk/types.js";
import { estimateJsonSize } from "../tool/json-size.js";
import { clip } from "./mcp-errors.js";
import type { McpRejectedTool } from "./mcp-events.js";

/** The tools a server lists, and the entries that could not be used. */
export interface McpToolListing {
  /** Well-formed tools, in the server's order. */
  readonly tools: readonly Tool[];
  /** Entries skipped, with the reason. */
  readonly rejected: readonly McpRejectedTool[];
  /** True when the listing stopped at a limit (pages, tools or size). */
  readonly truncated: boolean;
}

/**
 * Most pages read in one listing: a server that pages forever is cut off.
 *
 * @public
 */
export const MAX_TOOL_PAGES = 100;
/**
 * Most entries taken from one server's listing: tools, and entries rejected as invalid (which are
 * kept in its status).
 *
 * @public
 */
export const MAX_TOOLS_PER_SERVER = 5000;
/**
 * Most characters of JSON one listing keeps, over all its pages (estimated: `estimateJsonSize`). Each page is one message (at most 10 MiB over stdio), but the
 * pages are kept until the last one: a server answering 100 pages of 9 MiB cursors or descriptions
 * made the host hold a gigabyte (and die with a 512 MB heap). 32 Mi is over six times what 5,000
 * tools with 1 KB descriptions and 5 KB schemas take.
 */
const MAX_LISTING_SIZE = 32 * 1024 * 1024;

/** Reads every page of `tools/list`, checking each entry on its own. */
export async function listMcpTools(client: Client, options: RequestOptions): Promise<McpToolListing> {
  if (client.getServerCapabilities()?.tools === undefined) return { tools: [], rejected: [], truncated: false };
  const tools: Tool[] = [];
  const rejected: McpRejectedTool[] = [];
  const cursors = new Set<string>();
  let cursor: string | undefined;
  let size = 0;
  for (let page = 0; page < MAX_TOOL_PAGES; page++) {
    // The SDK's own (loose) result schema: each entry is checked on its own below, so one broken
    // tool does not hide the others (listTools rejects the whole page). Using the SDK's schema also
    // keeps this independent of which zod major the installed SDK uses.
    const result = await client.request(
      { method: "tools/list", params: cursor === undefined ? {} : { cursor } },
      ResultSchema,
      options,
    );
    const entries: unknown = result.tools;
    if (!Array.isArray(entries)) throw new MalformedListingError("tools/list result has no tools array");
    // The cursors are kept too (to stop at a repeated one): the page is measured whole. A page past
    // the budget is dropped and the listing ends there; the first page is always taken.
    size += estimateJsonSize(result, MAX_LISTING_SIZE - size);
    if (size > MAX_LISTING_SIZE && page > 0) return { tools, rejected, truncated: true };
    for (const entry of entries) {
      // Rejected entries count too: each is kept (status.rejected), and uncounted a server could
      // send any number of them (10,000 were all read and kept, the listing not truncated).
      if (tools.length + rejected.length >= MAX_TOOLS_PER_SERVER) return { tools, rejected, truncated: true };
      const checked = checkTool(entry);
      if ("tool" in checked) tools.push(checked.tool);
      else rejected.push(checked.rejected);
    }
    cursor = typeof result.nextCursor === "string" ? result.nextCursor : undefined;
    if (cursor === undefined) return { tools, rejected, truncated: false };
    if (cursors.has(cursor)) return { tools, rejected, truncated: true };
    cursors.add(cursor);
  }
  return { tools, rejected, truncated: true };
}

/** Whether the server accepts only task-augmented calls of `tool`, which this client never makes. */
function requiresTask(tool: Tool): boolean {
  const execution = (tool as { execution?: unknown }).execution;
  return (
    typeof execution === "object" && execution !== null && (execution as { taskSupport?: unknown }).taskSupport === "required"
  );
}

function checkTool(entry: unknown): { tool: Tool } | { rejected: McpRejectedTool } {
  const parsed = ToolSchema.safeParse(entry);
  if (parsed.success) {
    if (requiresTask(parsed.data)) {
      return {
        rejected: {
          mcpName: clip(parsed.data.name, 200),
          reason: "task_required",
          message: 'it can only be called as a task (execution.taskSupport "required"), which this client does not do',
        },
      };
    }
    return { tool: withSchemasAsSent(parsed.data, entry) };
  }
  const raw = (typeof entry === "object" && entry !== null ? entry : {}) as { name?: unknown; inputSchema?: unknown };
  const mcpName = typeof raw.name === "string" ? clip(raw.name, 200) : "(unnamed)";
  const schema = raw.inputSchema as { type?: unknown } | undefined;
  if (typeof raw.name === "string" && (typeof schema !== "object" || schema === null || schema.type !== "object")) {
    return {
      rejected: {
        mcpName,
        reason: "invalid_input_schema",
        message: `inputSchema must be a JSON Schema of type "object", got ${describe(schema)}`,
      },
    };
  }
  const issue = parsed.error.issues[0];
  const where = issue === undefined || issue.path.length === 0 ? "" : `${issue.path.map(String).join(".")}: `;
  return { rejected: { mcpName, reason: "invalid_tool", message: `not a valid MCP tool (${where}${issue?.message ?? "?"})` } };
}

/**
 * `tool` with its `inputSchema` and `outputSchema` as the server sent them (JSON as parsed, every
 * key an own data property). The SDK's zod schema reads `properties` as a record, and zod 4 drops
 * a key named `__proto__` from a record: such a field vanished while `required` still named it,
 * so the model was told to send a field it was never described and its type went unchecked
 * (round 44). Only schemas that the SDK accepted are taken; both are checked and bounded on their
 * own afterwards (`checkMcpInputSchema`, `mcpOutputSchema`).
 */
function withSchemasAsSent(tool: Tool, entry: unknown): Tool {
  const raw = entry as { inputSchema?: unknown; outputSchema?: unknown };
  const sent = {
    inputSchema: plainObject(raw.inputSchema) ? raw.inputSchema : tool.inputSchema,
    ...(tool.outputSchema !== undefined && plainObject(raw.outputSchema) ? { outputSchema: raw.outputSchema } : {}),
  };
  return { ...tool, ...sent } as Tool;
}

function plainObject(value: unknown): boolean {
  return (
    typeof value === "object" && value !== null && !Array.isArray(value) && Object.getPrototypeOf(value) === Object.prototype
  );
}

function describe(schema: { type?: unknown } | undefined | null): string {
  if (typeof schema !== "object" || schema === null) return schema === null ? "null" : typeof schema;
  return `type ${JSON.stringify(schema.type ?? null)}`;
}

/** A listing that is not a listing at all; reported like the SDK's schema errors (it has `issues`). */
class MalformedListingError extends Error {
  readonly issues: readonly { readonly message: string }[];
  constructor(message: string) {
    super(message);
    this.issues = [{ message }];
  }
}
