import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ListToolsRequestSchema, type Tool } from "@modelcontextprotocol/sdk/types.js";
import { createRegistry, type Registry } from "agent-tool-catalog";
import { connectMcpServer, type McpCustomServerConfig } from "agent-tool-catalog/mcp";
import { afterEach, describe, expect, it } from "vitest";

// tools/list is paginated (MCP: the client follows nextCursor, an opaque string, until it is
// absent). A server built with the SDK's low-level Server pages its tools three at a time.

function pagingServer(
  count: number,
  nextCursor: (page: number) => string | undefined,
): McpCustomServerConfig & { seen: (string | undefined)[] } {
  const seen: (string | undefined)[] = [];
  const tools: Tool[] = Array.from({ length: count }, (_, index) => ({
    name: `tool_${index}`,
    description: `Tool number ${index}.`,
    inputSchema: { type: "object" },
  }));
  return {
    name: "paged",
    seen,
    transport: () => {
      const [client, serverSide] = InMemoryTransport.createLinkedPair();
      const server = new Server({ name: "paged", version: "1" }, { capabilities: { tools: {} } });
      server.setRequestHandler(ListToolsRequestSchema, async (request) => {
        const cursor = request.params?.cursor;
        seen.push(cursor);
        const page = cursor === undefined ? 0 : Number(cursor.split(":")[1]);
        const next = nextCursor(page);
        return { tools: tools.slice(page * 3, page * 3 + 3), ...(next === undefined ? {} : { nextCursor: next }) };
      });
      server.setRequestHandler(CallToolRequestSchema, async (request) => ({
        content: [{ type: "text", text: `${request.params.name} ran` }],
      }));
      void server.connect(serverSide);
      return client;
    },
  };
}

let registry: Registry;
afterEach(async () => {
  await registry.close();
});

describe("MCP tools/list pagination", () => {
  it("follows nextCursor, sent back as given, until a page has none, and registers every page's tools", async () => {
    registry = createRegistry();
    const config = pagingServer(8, (page) => (page < 2 ? `opaque:${page + 1}` : undefined));
    const handle = await connectMcpServer(registry, config);
    expect(config.seen).toEqual([undefined, "opaque:1", "opaque:2"]);
    expect(handle.status.tools).toEqual(Array.from({ length: 8 }, (_, index) => `mcp_paged_tool_${index}`));
    expect(handle.status.truncated).toBe(false);
    const run = registry.createRun();
    run.activate(["mcp_paged_tool_7"]);
    expect(await run.call("mcp_paged_tool_7", {})).toMatchObject({ ok: true, output: "tool_7 ran" });
  });

  it("stops at a cursor it was given before, keeps what it read and says the listing is truncated", async () => {
    registry = createRegistry();
    // The server's second page points at itself: following it would never end.
    const config = pagingServer(8, () => "opaque:1");
    const handle = await connectMcpServer(registry, config);
    expect(config.seen).toEqual([undefined, "opaque:1"]);
    expect(handle.status.tools).toHaveLength(6);
    expect(handle.status.truncated).toBe(true);
  });
});
