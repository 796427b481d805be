/**
 * README ("MCP servers"): "A server's listing is read up to 5,000 tools (`MAX_TOOLS_PER_SERVER`)
 * in up to 100 pages (`MAX_TOOL_PAGES`): the tools past it are not registered and
 * `status.truncated` is true." The tests before stopped only a cursor repeated. Attacked here with
 * the SDK's own low-level `Server`: a server that pages forever with ever new cursors, and one
 * whose one page lists 5,001 tools. Positive controls: exactly 100 pages, and a listing of
 * 5,000 tools, are read whole (`truncated` false).
 */
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { ListToolsRequestSchema, type Tool } from "@modelcontextprotocol/sdk/types.js";
import { createRegistry, type Registry } from "agent-tool-catalog";
import { connectMcpServer, MAX_TOOL_PAGES, MAX_TOOLS_PER_SERVER, type McpCustomServerConfig } from "agent-tool-catalog/mcp";
import { afterEach, describe, expect, it } from "vitest";

/** A server whose page `n` lists `perPage(n)` tools and points on while `more(n)`. */
function server(
  perPage: (page: number) => number,
  more: (page: number) => boolean,
): McpCustomServerConfig & { pagesRead: () => number } {
  let pages = 0;
  let next = 0;
  return {
    name: "bounded",
    pagesRead: () => pages,
    transport: () => {
      const [client, serverSide] = InMemoryTransport.createLinkedPair();
      const mcp = new Server({ name: "bounded", version: "1" }, { capabilities: { tools: {} } });
      mcp.setRequestHandler(ListToolsRequestSchema, async (request) => {
        const page = request.params?.cursor === undefined ? 0 : Number(request.params.cursor.split(":")[1]);
        pages++;
        const tools: Tool[] = Array.from({ length: perPage(page) }, () => {
          const index = next++;
          return { name: `t${index}`, description: `Tool ${index}.`, inputSchema: { type: "object" } };
        });
        // A fresh cursor each time: the repeated-cursor check never fires.
        return { tools, ...(more(page) ? { nextCursor: `page:${page + 1}` } : {}) };
      });
      void mcp.connect(serverSide);
      return client;
    },
  };
}

let registry: Registry | undefined;
afterEach(async () => {
  await registry?.close();
  registry = undefined;
});

describe("MCP tools/list bounds", () => {
  it("reads at most 100 pages of a server that pages forever, and says the listing is truncated", async () => {
    expect(MAX_TOOL_PAGES).toBe(100);
    registry = createRegistry();
    const config = server(
      () => 2,
      () => true,
    );
    const handle = await connectMcpServer(registry, config);
    expect(config.pagesRead()).toBe(100);
    expect(handle.status.tools).toHaveLength(200);
    expect(handle.status.truncated).toBe(true);
  });

  it("control: exactly 100 pages are read whole", async () => {
    registry = createRegistry();
    const config = server(
      () => 2,
      (page) => page < 99,
    );
    const handle = await connectMcpServer(registry, config);
    expect(config.pagesRead()).toBe(100);
    expect(handle.status.tools).toHaveLength(200);
    expect(handle.status.truncated).toBe(false);
  });

  it("registers 5,000 of a page of 5,001 tools, and says the listing is truncated; control: 5,000 whole", async () => {
    expect(MAX_TOOLS_PER_SERVER).toBe(5000);
    registry = createRegistry();
    const over = await connectMcpServer(
      registry,
      server(
        () => 5001,
        () => false,
      ),
    );
    expect(over.status.tools).toHaveLength(5000);
    expect(registry.has("mcp_bounded_t4999")).toBe(true);
    expect(registry.has("mcp_bounded_t5000")).toBe(false);
    expect(over.status.truncated).toBe(true);
    await registry.close();

    registry = createRegistry();
    const whole = await connectMcpServer(
      registry,
      server(
        () => 1000,
        (page) => page < 4,
      ),
    );
    expect(whole.status.tools).toHaveLength(5000);
    expect(whole.status.truncated).toBe(false);
  }, 60_000);

  it("counts rejected entries toward the 5,000: a page of 10,000 invalid entries stops there; control: 4,999 and a tool", async () => {
    // Before, rejected entries were not counted: all 10,000 were read and kept in status.rejected,
    // the tool after them registered, and the listing not truncated.
    const entries = (invalid: number): unknown[] => [
      ...Array.from({ length: invalid }, (_, index) => ({ name: `bad${index}`, inputSchema: { type: "string" } })),
      { name: "good", inputSchema: { type: "object" } },
    ];
    const listing = (invalid: number): McpCustomServerConfig => ({
      name: "rejecting",
      transport: () => {
        const [client, serverSide] = InMemoryTransport.createLinkedPair();
        const mcp = new Server({ name: "rejecting", version: "1" }, { capabilities: { tools: {} } });
        mcp.setRequestHandler(ListToolsRequestSchema, () => ({ tools: entries(invalid) as Tool[] }));
        void mcp.connect(serverSide);
        return client;
      },
    });
    registry = createRegistry();
    const over = await connectMcpServer(registry, listing(10_000));
    expect(over.status.rejected).toHaveLength(5000);
    expect(over.status.rejected.every((tool) => tool.reason === "invalid_input_schema")).toBe(true);
    expect(over.status.tools).toEqual([]);
    expect(over.status.truncated).toBe(true);
    await registry.close();

    registry = createRegistry();
    const within = await connectMcpServer(registry, listing(4999));
    expect(within.status.rejected).toHaveLength(4999);
    expect(within.status.tools).toEqual(["mcp_rejecting_good"]);
    expect(within.status.truncated).toBe(false);
  }, 60_000);
});
