/**
 * README ("MCP servers"): `connect_mcp` connects "at most 5 per run". A model sends its tool
 * calls of one step in parallel, so the limit must hold for calls that overlap: each connect
 * awaits the host's approval and the server's handshake, and a check made before those awaits
 * let eight parallel calls all see zero servers and connect eight. Real HTTP MCP server on
 * 127.0.0.1; positive controls: five parallel connects all succeed, and a slot freed by a failed
 * connect is taken again.
 */
import { createRegistry, type Registry } from "agent-tool-catalog";
import { createConnectMcpTool, McpServerSet } from "agent-tool-catalog/mcp";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createFixtureServer } from "./support/fixture-server.js";
import { type HttpFixture, startHttpFixture } from "./support/http-fixture.js";

let http: HttpFixture;
let registry: Registry | undefined;

beforeAll(async () => {
  http = await startHttpFixture(() => createFixtureServer());
});

afterAll(async () => {
  await http.close();
});

afterEach(async () => {
  await registry?.close();
  registry = undefined;
});

function codeOf(result: { ok: boolean; error?: { code: string } }): string {
  return result.ok ? "ok" : (result.error?.code ?? "?");
}

describe("connect_mcp's per-run limit under parallel calls", () => {
  it("connects at most 5 of 8 parallel calls of one step; the rest are mcp_server_limit", async () => {
    registry = createRegistry();
    const group = new McpServerSet();
    // The approval is where a real host awaits a person or a policy service: the calls overlap there.
    registry.register(
      createConnectMcpTool(registry, {
        group,
        approve: async () => {
          await new Promise((resolve) => setTimeout(resolve, 20));
          return true;
        },
      }),
    );
    const run = registry.createRun({ runId: "parallel" });
    run.activate(["connect_mcp"]);
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, index) => run.call("connect_mcp", { name: `s${index}`, url: http.url })),
    );
    const codes = results.map(codeOf);
    expect(codes.filter((code) => code === "ok")).toHaveLength(5);
    expect(codes.filter((code) => code === "mcp_server_limit")).toHaveLength(3);
    expect(group.list("parallel").filter((handle) => handle.runId === "parallel")).toHaveLength(5);
  });

  // Held before the fix too (the server set refuses the second name); kept as a guard of the name check.
  it("connects one of two parallel calls under the same name; the other is mcp_server_exists", async () => {
    registry = createRegistry();
    const group = new McpServerSet();
    registry.register(createConnectMcpTool(registry, { group, approve: () => true }));
    const run = registry.createRun({ runId: "twins" });
    run.activate(["connect_mcp"]);
    const results = await Promise.all([0, 1].map(() => run.call("connect_mcp", { name: "twin", url: http.url })));
    expect(results.map(codeOf).sort()).toEqual(["mcp_server_exists", "ok"]);
    expect(group.list("twins").filter((handle) => handle.runId === "twins")).toHaveLength(1);
  });

  it("positive control: a slot held by a connect that failed is free again", async () => {
    registry = createRegistry();
    const group = new McpServerSet();
    registry.register(
      createConnectMcpTool(registry, { group, approve: () => true, maxServersPerRun: 1, connectTimeoutMs: 2000 }),
    );
    const run = registry.createRun({ runId: "refill" });
    run.activate(["connect_mcp"]);
    expect(codeOf(await run.call("connect_mcp", { name: "dead", url: "http://127.0.0.1:9/mcp" }))).toBe("mcp_connect_failed");
    expect(codeOf(await run.call("connect_mcp", { name: "live", url: http.url }))).toBe("ok");
    expect(codeOf(await run.call("connect_mcp", { name: "more", url: http.url }))).toBe("mcp_server_limit");
  });
});
