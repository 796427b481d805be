import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { createRegistry, EventBus, type Registry } from "agent-tool-catalog";
import { connectMcpServer, type McpEvents, type McpToolRejectedEvent } from "agent-tool-catalog/mcp";
import { afterEach, describe, expect, it } from "vitest";

// Schemas as real servers publish them, one per draft, plus one that is broken for real.
const TOOLS = [
  {
    name: "draft04",
    description: "A draft-04 schema with the boolean exclusiveMinimum.",
    inputSchema: {
      $schema: "http://json-schema.org/draft-04/schema#",
      type: "object",
      properties: { n: { type: "number", minimum: 0, exclusiveMinimum: true } },
      required: ["n"],
    },
  },
  {
    name: "draft07",
    description: "A draft-07 schema.",
    inputSchema: {
      $schema: "http://json-schema.org/draft-07/schema#",
      type: "object",
      properties: { s: { type: "string", maxLength: 3 } },
      required: ["s"],
    },
  },
  {
    name: "draft2020",
    description: "A 2020-12 schema with prefixItems.",
    inputSchema: {
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      properties: { xs: { type: "array", prefixItems: [{ type: "number" }], items: false } },
      required: ["xs"],
    },
  },
  {
    name: "broken",
    description: "A $ref to nothing.",
    inputSchema: { type: "object", properties: { a: { $ref: "#/definitions/nowhere" } } },
  },
];

function draftServer() {
  const server = new Server({ name: "drafts", version: "1.0.0" }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: TOOLS }));
  server.setRequestHandler(CallToolRequestSchema, (request) => ({
    content: [{ type: "text", text: `${request.params.name} got ${JSON.stringify(request.params.arguments)}` }],
  }));
  return server;
}

let registry: Registry;

afterEach(async () => {
  await registry.close();
});

describe("input schemas of every draft a real server publishes", () => {
  it("registers draft-04, draft-07 and 2020-12 tools and validates each by its own rules; a broken one is reported, not dropped silently", async () => {
    registry = createRegistry();
    const events = new EventBus<McpEvents>();
    const rejected: McpToolRejectedEvent[] = [];
    events.on("tool.rejected", (event) => rejected.push(event));
    const handle = await connectMcpServer(
      registry,
      {
        name: "d",
        transport: () => {
          const [client, server] = InMemoryTransport.createLinkedPair();
          void draftServer().connect(server);
          return client;
        },
      },
      { events },
    );
    expect(handle.tools().map((tool) => tool.mcpName)).toEqual(["draft04", "draft07", "draft2020"]);
    expect(rejected.map((event) => event.tool.mcpName)).toEqual(["broken"]);
    expect(handle.status.rejected).toMatchObject([{ mcpName: "broken", reason: "invalid_input_schema" }]);

    const run = registry.createRun();
    run.activate(["mcp_d_draft04", "mcp_d_draft07", "mcp_d_draft2020"]);
    // draft-04 `minimum: 0, exclusiveMinimum: true` means "over 0".
    expect(await run.call("mcp_d_draft04", { n: 0 })).toMatchObject({ ok: false, error: { code: "invalid_input" } });
    expect(await run.call("mcp_d_draft04", { n: 0.5 })).toMatchObject({ ok: true });
    expect(await run.call("mcp_d_draft07", { s: "long" })).toMatchObject({ ok: false, error: { code: "invalid_input" } });
    expect(await run.call("mcp_d_draft07", { s: "ok" })).toMatchObject({ ok: true });
    // 2020-12 `prefixItems` + `items: false`: exactly one leading number.
    expect(await run.call("mcp_d_draft2020", { xs: [1, 2] })).toMatchObject({ ok: false, error: { code: "invalid_input" } });
    expect(await run.call("mcp_d_draft2020", { xs: [1] })).toMatchObject({ ok: true });
  });
});
