import type { ReadResourceResult } from "@modelcontextprotocol/sdk/types.js";
import { type AnyToolDefinition, defineTool, ToolError } from "agent-tool-catalog";
import { z } from "zod";
import { checkNumberOption } from "../errors/check-number-option.js";
import { countOf } from "../errors/count-of.js";
import { requireCursorServer } from "./cursor-server.js";
import { cutToBytes, utf8Length } from "./cut-to-bytes.js";
import { clip } from "./mcp-errors.js";
import type { McpServerHandle } from "./mcp-server-handle.js";
import type { McpServerSet } from "./mcp-server-set.js";

/**
 * Options of {@link createMcpResourceTools}.
 *
 * @public
 */
export interface McpResourceToolsOptions {
  /**
   * Largest output of one resource tool call, in UTF-8 bytes: a whole number at least 1.
   * @defaultValue 100000
   */
  readonly maxOutputBytes?: number;
  /**
   * Most resources listed per server in one `list_mcp_resources` call: a whole number at least 1,
   * or `Infinity`.
   * @defaultValue 50
   */
  readonly maxResourcesPerServer?: number;
}

const RESOURCE_TAGS = ["mcp", "resources", "integration", "external"];

/**
 * `list_mcp_resources` and `read_mcp_resource`: deferred tools over every server of the group the
 * calling run may use. Outputs are bounded (entries per server, bytes per call); binary contents
 * are summarized, not dumped.
 * @public
 */
export function createMcpResourceTools(group: McpServerSet, options: McpResourceToolsOptions = {}): AnyToolDefinition[] {
  const maxBytes =
    checkNumberOption(options.maxOutputBytes, "maxOutputBytes", { min: 1, integer: true }, "createMcpResourceTools") ?? 100_000;
  const perServer =
    checkNumberOption(
      options.maxResourcesPerServer,
      "maxResourcesPerServer",
      { min: 1, integer: true, infinite: true },
      "createMcpResourceTools",
    ) ?? 50;
  const list = defineTool({
    name: "list_mcp_resources",
    description:
      "List the resources (files, documents, records) that connected MCP servers offer. Read one with read_mcp_resource.",
    tier: "deferred",
    tags: RESOURCE_TAGS,
    annotations: { title: "List MCP resources", readOnlyHint: true },
    inputSchema: z.object({
      server: z.string().max(200).optional().describe("Only this server (default: every server)."),
      cursor: z.string().max(2000).optional().describe("next_cursor of a previous call; pass the server it came from too."),
    }),
    handler: async ({ server, cursor }, context) => {
      requireCursorServer("list_mcp_resources", server, cursor);
      const handles = server === undefined ? group.list(context.runId) : [requireServer(group, server, context.runId)];
      const listings = await Promise.all(
        handles
          .filter((handle) => server !== undefined || handle.supportsResources)
          .map((handle) => listOne(handle, cursor, perServer, context.signal)),
      );
      return boundedJson({ servers: listings }, maxBytes);
    },
  });
  const read = defineTool({
    name: "read_mcp_resource",
    description: "Read one resource of a connected MCP server by its URI (from list_mcp_resources).",
    tier: "deferred",
    tags: RESOURCE_TAGS,
    annotations: { title: "Read MCP resource", readOnlyHint: true },
    inputSchema: z.object({
      server: z.string().max(200).describe("The server's name, as list_mcp_resources shows it."),
      uri: z.string().min(1).max(4000).describe("The resource's URI."),
    }),
    handler: async ({ server, uri }, context) => {
      const handle = requireServer(group, server, context.runId);
      const result = await handle.readResource(uri, { signal: context.signal });
      return cutToBytes(describeContents(result), maxBytes);
    },
  });
  return [list, read];
}

interface ResourceListing {
  readonly server: string;
  readonly resources: readonly { uri: string; name: string; mimeType?: string; description?: string }[];
  readonly next_cursor?: string;
  readonly note?: string;
  readonly error?: string;
}

async function listOne(
  handle: McpServerHandle,
  cursor: string | undefined,
  limit: number,
  signal: AbortSignal,
): Promise<ResourceListing> {
  try {
    const page = await handle.listResources({ ...(cursor === undefined ? {} : { cursor }), signal });
    const resources = page.resources.slice(0, limit).map((resource) => ({
      uri: clip(resource.uri, 500),
      name: clip(resource.name, 200),
      ...(resource.mimeType === undefined ? {} : { mimeType: clip(resource.mimeType, 100) }),
      ...(resource.description === undefined ? {} : { description: clip(resource.description, 200) }),
    }));
    const more =
      page.resources.length > limit ? { note: `${page.resources.length - limit} more resources on this page not shown` } : {};
    return {
      server: handle.name,
      resources,
      ...(page.nextCursor === undefined ? {} : { next_cursor: page.nextCursor }),
      ...more,
    };
  } catch (error) {
    if (signal.aborted) throw error;
    return { server: handle.name, resources: [], error: error instanceof Error ? error.message : String(error) };
  }
}

function requireServer(group: McpServerSet, name: string, runId: string): McpServerHandle {
  const handle = group.get(name, runId);
  if (handle !== undefined) return handle;
  const names = group.list(runId).map((server) => server.name);
  throw new ToolError("unknown_mcp_server", `No connected MCP server is named ${JSON.stringify(clip(name, 80))}.`, {
    hint: names.length > 0 ? `Use one of: ${names.map((n) => JSON.stringify(n)).join(", ")}.` : "No MCP server is connected.",
  });
}

function describeContents(result: ReadResourceResult): string {
  const parts = result.contents.map((content) => {
    const mime = content.mimeType ?? "unknown type";
    if ("text" in content && typeof content.text === "string") return `[${clip(content.uri, 300)} (${mime})]\n${content.text}`;
    const blob = "blob" in content && typeof content.blob === "string" ? content.blob : "";
    return `[${clip(content.uri, 300)} (${mime}, ${countOf(Math.floor((blob.length * 3) / 4), "byte")} of binary data, not shown)]`;
  });
  return parts.length === 0 ? "(the resource is empty)" : parts.join("\n");
}

/** JSON that stays valid under the byte limit: whole resources are dropped from the end, never cut mid-way. */
function boundedJson(value: { servers: ResourceListing[] }, maxBytes: number): string {
  let text = JSON.stringify(value);
  const servers = value.servers.map((server) => ({ ...server, resources: [...server.resources] }));
  let dropped = 0;
  while (utf8Length(text) > maxBytes && servers.some((server) => server.resources.length > 0)) {
    const longest = servers.reduce((a, b) => (b.resources.length > a.resources.length ? b : a));
    const cut = Math.max(1, Math.ceil(longest.resources.length / 4));
    longest.resources.splice(longest.resources.length - cut, cut);
    dropped += cut;
    text = JSON.stringify({
      servers,
      truncated: `${countOf(dropped, "resource")} left out to stay under ${countOf(maxBytes, "byte")}`,
    });
  }
  // Only a limit smaller than the skeleton itself gets here; then a cut with a marker it is.
  return cutToBytes(text, maxBytes);
}
