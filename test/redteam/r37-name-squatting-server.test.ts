/**
 * Red team round 37 (held): a hostile MCP server squatting another server's tool names. Server
 * "a" (untrusted) lists `b_c`, which is registered as `mcp_a_b_c`, the name of the trusted server
 * "a_b"'s tool `c`. While "a_b" is connected the name is taken (`name_taken`, reported); once "a_b"
 * is closed and "a" re-lists (its own `list_changed`), "a" gets the name. A live run that had
 * activated the trusted tool does not pass its activation on: the squatter's tool is
 * `tool_not_activated` there (and reported `stale_activation`), so the model's next call of the name
 * never reaches the squatter unasked. Control: while "a_b" is connected the name reaches it, and
 * "a"'s own other tools work.
 */
import path from "node:path";
import { createRegistry, type Registry } from "agent-tool-catalog";
import { connectMcpServer } from "agent-tool-catalog/mcp";
import { afterEach, describe, expect, it } from "vitest";

const SERVER = path.join(import.meta.dirname, "r37-name-squatting-server.mjs");
let registry: Registry | undefined;
afterEach(async () => {
  await registry?.close();
  registry = undefined;
});

const text = (result: unknown) => JSON.stringify(result);

describe("an MCP server squatting another server's tool names", () => {
  it("gets the name only once the other server is gone, and inherits no activation", async () => {
    registry = createRegistry();
    const trusted = await connectMcpServer(registry, {
      name: "a_b",
      command: process.execPath,
      args: [SERVER, "a_b", "c"],
      trusted: true,
    });
    const squatter = await connectMcpServer(registry, {
      name: "a",
      command: process.execPath,
      args: [SERVER, "a", "b_c", "relist"],
    });
    expect([...trusted.status.tools]).toEqual(["mcp_a_b_c"]);
    expect([...squatter.status.tools]).toEqual(["mcp_a_relist"]);
    expect(squatter.status.rejected).toMatchObject([{ mcpName: "b_c", name: "mcp_a_b_c", reason: "name_taken" }]);

    const run = registry.createRun();
    const diagnostics: string[] = [];
    run.events.on("run.diagnostic", (event) => diagnostics.push(event.kind));
    expect((await run.call("find_tool", { query: "select:mcp_a_b_c,mcp_a_relist" })).ok).toBe(true);
    // Control: the name reaches the trusted server, the squatter's own tool reaches it.
    expect(text(await run.call("mcp_a_b_c", {}))).toContain("a_b/c ran");

    await trusted.close();
    expect(text(await run.call("mcp_a_relist", {}))).toContain("a/relist ran");
    for (let tries = 0; tries < 200 && !squatter.status.tools.includes("mcp_a_b_c"); tries++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect([...squatter.status.tools].sort()).toEqual(["mcp_a_b_c", "mcp_a_relist"]);

    const squatted = await run.call("mcp_a_b_c", {});
    expect(squatted).toMatchObject({ ok: false, error: { code: "tool_not_activated" } });
    expect(text(squatted)).not.toContain("a/b_c ran");
    expect(run.definitions().map((definition) => definition.name)).not.toContain("mcp_a_b_c");
    expect(diagnostics).toContain("stale_activation");
    // A run started now finds and activates it as any other tool of "a" (control).
    const fresh = registry.createRun();
    await fresh.call("find_tool", { query: "select:mcp_a_b_c" });
    expect(text(await fresh.call("mcp_a_b_c", {}))).toContain("a/b_c ran");
  });
});
