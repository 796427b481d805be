// Red team round 8: a server whose input schema chains `$ref` definitions into each other (a
// ring of 300, each referring to the next) passed the checks at connect, so the tool was offered,
// and the validator overflowed its stack compiling it at the first call: every call failed with
// tool_failed ("unusable input schema"), while the README promises such a tool is in
// `status.rejected`, never accepted and broken. A chain of 200 compiled, but held the host's
// thread for about a second. Chains over 100 are now rejected at connect, naming the reason.
import path from "node:path";
import { createRegistry, type Registry } from "agent-tool-catalog";
import { connectMcpServer } from "agent-tool-catalog/mcp";
import { afterEach, describe, expect, it } from "vitest";

const SERVER = path.join(import.meta.dirname, "servers", "ref-ring-server.mjs");
let registry: Registry;

afterEach(async () => {
  await registry.close();
});

describe("an MCP server whose schemas chain $refs into each other", () => {
  it("has a ring too long to compile rejected at connect, and a ring of 100 offered and callable", async () => {
    registry = createRegistry();
    const handle = await connectMcpServer(registry, {
      name: "rings",
      command: process.execPath,
      args: [SERVER, "300,100"],
      timeoutMs: 20_000,
    });
    expect(handle.status.rejected).toEqual([
      expect.objectContaining({
        mcpName: "ring_300",
        reason: "invalid_input_schema",
        message: expect.stringMatching(/\$refs chain/),
      }),
    ]);
    expect(handle.status.tools).toEqual(["mcp_rings_ring_100"]);
    // positive control: the ring at the bound compiles and the call reaches the server
    const run = registry.createRun();
    run.activate(["mcp_rings_ring_100"]);
    const input = { root: { label: "a", next: { label: "b", next: {} } } };
    expect(await run.call("mcp_rings_ring_100", input)).toMatchObject({ ok: true, output: "ring_100 ran" });
    expect(await run.call("mcp_rings_ring_100", { root: { label: 5 } })).toMatchObject({
      ok: false,
      error: { code: "invalid_input" },
    });
  }, 60_000);
});
