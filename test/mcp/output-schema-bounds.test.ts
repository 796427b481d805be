/**
 * A tool's `outputSchema` is held to the bounds of an input schema (1 Mi characters, 20,000 nodes,
 * 64 levels): before, a 2 MiB or 30,000-node output schema was registered and kept whole with the
 * tool, and one nested 100,000 levels was refused only by accident (the fingerprint's
 * JSON.stringify overflowed the stack) as `invalid_input_schema` "Maximum call stack size exceeded".
 * Such a tool is refused (`invalid_output_schema`); its results could not be held to the schema.
 */
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ListToolsRequestSchema, type Tool } from "@modelcontextprotocol/sdk/types.js";
import { createRegistry, type Registry } from "agent-tool-catalog";
import { connectMcpServer } from "agent-tool-catalog/mcp";
import { afterEach, describe, expect, it } from "vitest";

let registry: Registry | undefined;
afterEach(async () => {
  await registry?.close();
  registry = undefined;
});

/** An object schema whose property `value` nests `depth` levels of `{ items: ... }` below it. */
function deepSchema(depth: number): Record<string, unknown> {
  let node: Record<string, unknown> = { type: "string" };
  for (let level = 0; level < depth; level++) node = { type: "array", items: node };
  return { type: "object", properties: { value: node } };
}

/** An object schema with `count` properties (two nodes each: the schema and its `type` is a scalar). */
function wideSchema(count: number): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  for (let index = 0; index < count; index++) properties[`p${index}`] = { type: "number" };
  return { type: "object", properties };
}

const TOOLS: Tool[] = [
  { name: "ordinary", inputSchema: { type: "object" }, outputSchema: wideSchema(3) as Tool["outputSchema"] },
  { name: "near_limits", inputSchema: { type: "object" }, outputSchema: deepSchema(60) as Tool["outputSchema"] },
  {
    name: "large",
    inputSchema: { type: "object" },
    outputSchema: { type: "object", description: "x".repeat(2 * 1024 * 1024) },
  },
  { name: "many_nodes", inputSchema: { type: "object" }, outputSchema: wideSchema(30_000) as Tool["outputSchema"] },
  { name: "deep", inputSchema: { type: "object" }, outputSchema: deepSchema(100_000) as Tool["outputSchema"] },
];

function server(): Parameters<typeof connectMcpServer>[1] {
  return {
    name: "out",
    transport: () => {
      const [client, serverSide] = InMemoryTransport.createLinkedPair();
      const mcp = new Server({ name: "out", version: "1" }, { capabilities: { tools: {} } });
      mcp.setRequestHandler(ListToolsRequestSchema, () => ({ tools: TOOLS }));
      mcp.setRequestHandler(CallToolRequestSchema, () => ({
        content: [],
        structuredContent: { p0: 1, p1: 2, p2: 3, value: "v" },
      }));
      void mcp.connect(serverSide);
      return client;
    },
  };
}

describe("MCP output schemas are bounded as input schemas are", () => {
  it("refuses a tool whose output schema is over 1 Mi characters, 20,000 nodes or 64 levels: invalid_output_schema", async () => {
    registry = createRegistry();
    const handle = await connectMcpServer(registry, server());
    const rejected = Object.fromEntries(handle.status.rejected.map((tool) => [tool.mcpName, tool]));
    expect(Object.keys(rejected).sort()).toEqual(["deep", "large", "many_nodes"]);
    expect(rejected.large).toMatchObject({
      reason: "invalid_output_schema",
      message: expect.stringContaining("outputSchema is invalid: the schema holds more than 1048576 characters"),
    });
    expect(rejected.many_nodes).toMatchObject({
      reason: "invalid_output_schema",
      message: expect.stringContaining("more than 20000 nodes"),
    });
    expect(rejected.deep).toMatchObject({
      reason: "invalid_output_schema",
      message: expect.stringContaining("nested deeper than 64 levels"),
    });
    // Positive control: schemas within the bounds are kept, and their results checked against them.
    expect([...handle.status.tools].sort()).toEqual(["mcp_out_near_limits", "mcp_out_ordinary"]);
    const run = registry.createRun();
    run.activate(["mcp_out_ordinary", "mcp_out_near_limits"]);
    expect(await run.call("mcp_out_ordinary", {})).toMatchObject({ ok: true });
    expect(await run.call("mcp_out_near_limits", {})).toMatchObject({
      ok: false,
      error: { code: "mcp_malformed_result", message: expect.stringContaining("does not match") },
    });
  }, 60_000);
});
