/**
 * Red team round 14 (held): MCP servers that answer in ways a conforming server never does. The
 * raw server (no SDK, nothing checks what it sends) runs over stdio in a child process; the server
 * listing 10,000 tools is the SDK's low-level `Server` over the in-memory transport.
 */
import path from "node:path";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { createRegistry, type Registry } from "agent-tool-catalog";
import { connectMcpServer, MAX_TOOLS_PER_SERVER } from "agent-tool-catalog/mcp";
import { afterEach, describe, expect, it } from "vitest";

const SERVER = path.join(import.meta.dirname, "..", "mcp", "servers", "raw-results-server.mjs");
let registry: Registry | undefined;

afterEach(async () => {
  await registry?.close();
  registry = undefined;
});

describe("an MCP server answering outside the protocol", () => {
  it("a content block of an unknown type: mcp_malformed_result naming it; 2,000 unasked progress notifications: the answer", async () => {
    registry = createRegistry();
    await connectMcpServer(registry, { name: "raw", command: process.execPath, args: [SERVER] });
    const run = registry.createRun();
    run.activate(["mcp_raw_unknown_block", "mcp_raw_only_unknown", "mcp_raw_progress_flood"]);
    expect(await run.call("mcp_raw_unknown_block", {})).toMatchObject({
      ok: false,
      error: { code: "mcp_malformed_result", message: expect.stringContaining("content.1") },
    });
    expect(await run.call("mcp_raw_only_unknown", {})).toMatchObject({ ok: false, error: { code: "mcp_malformed_result" } });
    // Positive control, and the flood: progress for tokens the client never sent is dropped.
    expect(await run.call("mcp_raw_progress_flood", {})).toMatchObject({ ok: true, output: "done" });
    // The connection survived all three.
    expect(await run.call("mcp_raw_progress_flood", {})).toMatchObject({ ok: true, output: "done" });
  }, 20_000);

  it("a server listing 10,000 tools: the first 5,000 are registered and the listing says it was truncated", async () => {
    registry = createRegistry();
    const tools = Array.from({ length: 10_000 }, (_, index) => ({
      name: `tool_${index}`,
      description: `Tool number ${index}.`,
      inputSchema: { type: "object" },
    }));
    const handle = await connectMcpServer(registry, {
      name: "many",
      transport: () => {
        const [client, serverSide] = InMemoryTransport.createLinkedPair();
        const server = new Server({ name: "many", version: "1" }, { capabilities: { tools: {} } });
        server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));
        server.setRequestHandler(CallToolRequestSchema, (request) => ({
          content: [{ type: "text", text: request.params.name }],
        }));
        void server.connect(serverSide);
        return client;
      },
    });
    expect(MAX_TOOLS_PER_SERVER).toBe(5_000);
    expect(handle.status.tools).toHaveLength(5_000);
    expect(handle.status.truncated).toBe(true);
    const run = registry.createRun();
    run.activate(["mcp_many_tool_4999"]);
    expect(await run.call("mcp_many_tool_4999", {})).toMatchObject({ ok: true, output: "tool_4999" });
    expect(registry.has("mcp_many_tool_5000")).toBe(false);
  }, 20_000);
});
