import { createRegistry, defineTool, EventBus, type Registry, TOOL_NAME_PATTERN } from "agent-tool-catalog";
import { connectMcpServer, type McpEvents, type McpRejectedTool, mcpToolName } from "agent-tool-catalog/mcp";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createFixtureServer, HOSTILE_NAMES } from "./support/fixture-server.js";
import { type HttpFixture, startHttpFixture } from "./support/http-fixture.js";
import { stdioFixture } from "./support/stdio-fixture.js";

let registry: Registry;
let http: HttpFixture;

beforeAll(async () => {
  http = await startHttpFixture(() => createFixtureServer());
});

afterAll(async () => {
  await http.close();
});

afterEach(async () => {
  await registry.close();
});

describe("a server with hostile tool names and broken schemas (stdio)", () => {
  it("registers every valid tool under a valid name and reports the others, without failing the connect", async () => {
    registry = createRegistry();
    const events = new EventBus<McpEvents>();
    const rejectedEvents: McpRejectedTool[] = [];
    events.on("tool.rejected", ({ tool }) => rejectedEvents.push(tool));
    const handle = await connectMcpServer(registry, stdioFixture("h", { hostile: true }), { events });

    const names = handle.tools().map((tool) => tool.name);
    for (const name of names) expect(name).toMatch(TOOL_NAME_PATTERN);
    expect(names).toContain("mcp_h_echo");
    expect(names).toContain("mcp_h_cafe_creme");
    expect(names).toContain(mcpToolName("h", HOSTILE_NAMES.unicode));
    const longA = mcpToolName("h", HOSTILE_NAMES.longA);
    const longB = mcpToolName("h", HOSTILE_NAMES.longB);
    expect(longA).toHaveLength(64);
    expect(names).toEqual(expect.arrayContaining([longA, longB]));

    const reasons = Object.fromEntries(handle.status.rejected.map((tool) => [tool.mcpName, tool.reason]));
    expect(reasons).toEqual({
      [HOSTILE_NAMES.collidingA]: "name_collision",
      [HOSTILE_NAMES.collidingB]: "name_collision",
      string_schema: "invalid_input_schema",
      bad_json_schema: "invalid_input_schema",
      dangling_ref: "invalid_input_schema",
      "(unnamed)": "invalid_tool",
    });
    expect(names).not.toContain("mcp_h_read_file");
    expect(rejectedEvents.map((tool) => tool.mcpName).sort()).toEqual(Object.keys(reasons).sort());
    const collision = handle.status.rejected.find((tool) => tool.reason === "name_collision");
    expect(collision?.message).toContain('"mcp_h_read_file"');

    const run = registry.createRun();
    run.activate([mcpToolName("h", HOSTILE_NAMES.unicode), longB]);
    expect(await run.call(mcpToolName("h", HOSTILE_NAMES.unicode), {})).toMatchObject({
      ok: true,
      output: `called ${HOSTILE_NAMES.unicode}`,
    });
    expect(await run.call(longB, {})).toMatchObject({ ok: true, output: `called ${HOSTILE_NAMES.longB}` });
  });
});

describe("two servers whose names sanitize alike", () => {
  it("fails the second connect with duplicate_mcp_server and keeps the first server's tools", async () => {
    registry = createRegistry();
    const first = await connectMcpServer(registry, { name: "fix", url: http.url });
    await expect(connectMcpServer(registry, { name: "Fix", url: http.url })).rejects.toMatchObject({
      code: "duplicate_mcp_server",
      data: { name: "Fix", existing: "fix" },
    });
    expect(first.tools().length).toBeGreaterThan(5);
    expect(registry.has("mcp_fix_echo")).toBe(true);
  });

  it("still reports a tool whose name another (non-MCP) tool holds as name_taken, and registers the rest", async () => {
    registry = createRegistry({
      tools: [defineTool({ name: "mcp_fix_echo", description: "Taken.", inputSchema: z.object({}), handler: () => "mine" })],
    });
    const handle = await connectMcpServer(registry, { name: "fix", url: http.url });
    expect(handle.status.rejected).toMatchObject([{ mcpName: "echo", reason: "name_taken" }]);
    expect(handle.tools().length).toBeGreaterThan(5);
  });
});
