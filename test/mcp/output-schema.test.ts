import { fileURLToPath } from "node:url";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { createRegistry, type Registry, type ToolCallResult } from "agent-tool-catalog";
import { connectMcpServer, type McpCustomServerConfig } from "agent-tool-catalog/mcp";
import { afterEach, describe, expect, it } from "vitest";
import { threadTimes } from "../support/thread-time.js";

// What the MCP SDK's own client does with a tool's outputSchema (Client.callTool after
// listTools): a successful result must carry structuredContent, and it must match the schema.
// The catalog lists tools itself (entry by entry), so it has to make the same check.

const WEATHER_SCHEMA: NonNullable<Tool["outputSchema"]> = {
  type: "object",
  properties: { temperature: { type: "number" }, conditions: { type: "string" } },
  required: ["temperature", "conditions"],
};

/** Tools with an output schema, each answering with the given result. */
const RESULTS: Record<string, CallToolResult> = {
  conforming: { content: [{ type: "text", text: "{}" }], structuredContent: { temperature: 21, conditions: "Sunny" } },
  wrong_type: { content: [{ type: "text", text: "{}" }], structuredContent: { temperature: "hot", conditions: "Sunny" } },
  missing_field: { content: [{ type: "text", text: "{}" }], structuredContent: { temperature: 21 } },
  no_structured: { content: [{ type: "text", text: "21 degrees, sunny" }] },
  failing: { content: [{ type: "text", text: "the weather service is down" }], isError: true },
};

/** A server built with the SDK's low-level `Server`, which (unlike `McpServer`) sends what it is told. */
function rawServer(tools: Tool[], results: Record<string, CallToolResult>): McpCustomServerConfig {
  return {
    name: "raw",
    transport: () => {
      const [client, serverSide] = InMemoryTransport.createLinkedPair();
      const server = new Server({ name: "raw", version: "1" }, { capabilities: { tools: {} } });
      server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
      server.setRequestHandler(CallToolRequestSchema, async (request) => results[request.params.name] ?? { content: [] });
      void server.connect(serverSide);
      return client;
    },
  };
}

const weatherTools = Object.keys(RESULTS).map(
  (name): Tool => ({ name, inputSchema: { type: "object" }, outputSchema: { ...WEATHER_SCHEMA } }),
);

let registry: Registry;
afterEach(async () => {
  await registry.close();
});

async function call(name: string): Promise<ToolCallResult> {
  const run = registry.createRun();
  run.activate([name]);
  return run.call(name, {});
}

describe("MCP outputSchema: results are held to it, as the MCP SDK's client does", () => {
  it("answers structured content that does not match, or is missing, with mcp_malformed_result", async () => {
    registry = createRegistry();
    await connectMcpServer(registry, rawServer(weatherTools, RESULTS));
    const wrongType = await call("mcp_raw_wrong_type");
    expect(wrongType).toMatchObject({ ok: false, error: { code: "mcp_malformed_result" } });
    expect(!wrongType.ok && wrongType.error.message).toContain("temperature: must be number");
    const missing = await call("mcp_raw_missing_field");
    expect(missing).toMatchObject({ ok: false, error: { code: "mcp_malformed_result" } });
    expect(!missing.ok && missing.error.message).toContain("conditions");
    const none = await call("mcp_raw_no_structured");
    expect(none).toMatchObject({ ok: false, error: { code: "mcp_malformed_result" } });
    expect(!none.ok && none.error.message).toContain("did not return structured content");
  });

  it("positive controls: a conforming result passes as before, and a tool error stays mcp_tool_error", async () => {
    registry = createRegistry();
    await connectMcpServer(registry, rawServer(weatherTools, RESULTS));
    expect(await call("mcp_raw_conforming")).toMatchObject({
      ok: true,
      output: JSON.stringify({ temperature: 21, conditions: "Sunny" }),
    });
    const failing = await call("mcp_raw_failing");
    expect(failing).toMatchObject({ ok: false, error: { code: "mcp_tool_error" } });
    expect(!failing.ok && failing.error.message).toContain("the weather service is down");
  });

  it("checks the same result against the new schema after the server changes it", async () => {
    registry = createRegistry();
    let schema: object = { ...WEATHER_SCHEMA };
    const tools = () => [
      { name: "weather", inputSchema: { type: "object" as const }, outputSchema: schema as Tool["outputSchema"] },
    ];
    // The listing is built on every tools/list, so a refresh sees the changed schema.
    const handle = await connectMcpServer(registry, {
      name: "raw",
      transport: () => {
        const [client, serverSide] = InMemoryTransport.createLinkedPair();
        const server = new Server({ name: "raw", version: "1" }, { capabilities: { tools: {} } });
        server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: tools() }));
        server.setRequestHandler(CallToolRequestSchema, async () => RESULTS.wrong_type as CallToolResult);
        void server.connect(serverSide);
        return client;
      },
    });
    expect(await call("mcp_raw_weather")).toMatchObject({ ok: false, error: { code: "mcp_malformed_result" } });
    schema = { type: "object", properties: { temperature: { type: "string" } } };
    await handle.refresh();
    expect(await call("mcp_raw_weather")).toMatchObject({ ok: true });
  });

  it("never runs the server's regular expressions: a catastrophic pattern costs nothing", async () => {
    registry = createRegistry();
    const slow = "a".repeat(40);
    await connectMcpServer(
      registry,
      rawServer(
        [
          {
            name: "pattern",
            inputSchema: { type: "object" },
            outputSchema: { type: "object", properties: { id: { type: "string", pattern: "^(a+)+$" } }, required: ["id"] },
          },
        ],
        { pattern: { content: [], structuredContent: { id: `${slow}!` } } },
      ),
    );
    // The host thread's own run time (a backtracking match runs there whatever the load; wall
    // time at load 10-20 on 2 cores measures the machine): 2^40 steps would take hours.
    const started = threadTimes();
    expect(await call("mcp_raw_pattern")).toMatchObject({ ok: true });
    const ranMs = threadTimes().ranMs - started.ranMs;
    if (process.env.ATC_WALL_TO_CPU) console.log(`mcp_raw_pattern: ${Math.round(ranMs)} ms ran`);
    expect(ranMs).toBeLessThan(1_000);
  }, 60_000);

  it("@modelcontextprotocol/server-everything's get-structured-content passes the check", async () => {
    registry = createRegistry();
    const everythingBin = fileURLToPath(
      new URL("../../node_modules/@modelcontextprotocol/server-everything/dist/index.js", import.meta.url),
    );
    await connectMcpServer(registry, {
      name: "everything",
      command: process.execPath,
      args: [everythingBin, "stdio"],
      connectTimeoutMs: 20_000,
    });
    const result = await call("mcp_everything_get_structured_content");
    expect(result).toMatchObject({ ok: false, error: { code: "invalid_input" } });
    const run = registry.createRun();
    run.activate(["mcp_everything_get_structured_content"]);
    expect(await run.call("mcp_everything_get_structured_content", { location: "Chicago" })).toMatchObject({
      ok: true,
      output: JSON.stringify({ temperature: 36, conditions: "Light rain / drizzle", humidity: 82 }),
    });
  }, 30_000);
});
