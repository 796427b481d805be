/**
 * Red team round 12: an MCP server with 4,000 tools that sends `notifications/tools/list_changed`
 * every 120 ms without end. Each notification (after the 100 ms debounce) re-listed and re-checked
 * all 4,000 tools, one refresh after the other: the host's process was 45-80% busy (CPU time over
 * wall time) and `find_tool` answered at a third of its rate. Refreshes are now paced by their own
 * cost (at least nine times the last one's duration between them), so a flood costs about a tenth.
 */
import path from "node:path";
import { createRegistry, type Registry } from "agent-tool-catalog";
import { connectMcpServer } from "agent-tool-catalog/mcp";
import { afterEach, describe, expect, it } from "vitest";

const SERVER = path.join(import.meta.dirname, "..", "mcp", "servers", "list-changed-flood-server.mjs");
let registry: Registry;

afterEach(async () => {
  await registry.close();
});

describe("a server that sends tools/list_changed in a loop", () => {
  it("keeps the host's process under a third busy over 4 s, and a real change still lands", async () => {
    registry = createRegistry();
    const handle = await connectMcpServer(registry, { name: "flood", command: process.execPath, args: [SERVER, "4000", "120"] });
    let refreshed = 0;
    handle.events.on("tools.refreshed", () => {
      refreshed++;
    });
    const run = registry.createRun();
    const cpu = process.cpuUsage();
    const started = performance.now();
    while (performance.now() - started < 4_000) {
      await run.call("find_tool", { query: "reads files tool 42" });
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const used = process.cpuUsage(cpu);
    const busy = (used.user + used.system) / 1000 / (performance.now() - started);
    // At load 8-9: old code 0.52 (14 refreshes; 0.46-0.82 with 5,000 tools), new 0.18 (1-2).
    expect(busy, `refreshes: ${refreshed}`).toBeLessThan(0.33);
    expect(refreshed).toBeGreaterThan(0);
    // Positive control: the refreshes still happen, so a tool the server adds is registered.
    run.activate(["mcp_flood_grow"]);
    expect(await run.call("mcp_flood_grow", {})).toMatchObject({ ok: true });
    await expect.poll(() => registry.has("mcp_flood_added"), { timeout: 10_000 }).toBe(true);
  }, 40_000);
});
