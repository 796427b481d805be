/**
 * Red team round 12: an MCP server with 4,000 tools that sends `notifications/tools/list_changed`
 * every 120 ms without end. Each notification (after the 100 ms debounce) re-listed and re-checked
 * all 4,000 tools, one refresh after the other: the host's process was 45-80% busy (CPU time over
 * wall time) and `find_tool` answered at a third of its rate. Refreshes are now paced by their own
 * cost (at least nine times the last one's duration between them), so a flood costs about a tenth
 * of the host's time.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import path from "node:path";
import { createRegistry, type Registry } from "agent-tool-catalog";
import { connectMcpServer } from "agent-tool-catalog/mcp";
import { afterEach, describe, expect, it } from "vitest";

const SERVER = path.join(import.meta.dirname, "..", "mcp", "servers", "list-changed-flood-server.mjs");
let registry: Registry;
let scratch: string | undefined;

afterEach(async () => {
  await registry.close();
  if (scratch !== undefined) await rm(scratch, { recursive: true, force: true });
});

describe("a server that sends tools/list_changed in a loop", () => {
  it("pauses each refresh nine times the one before it (a tenth of the time), and a real change still lands", async () => {
    registry = createRegistry();
    scratch = await mkdtemp(path.join(tmpdir(), "atc-flood-"));
    const listings = path.join(scratch, "listings");
    const handle = await connectMcpServer(registry, {
      name: "flood",
      command: process.execPath,
      args: [SERVER, "4000", "120", listings],
    });
    const now = () => performance.timeOrigin + performance.now();
    const refreshes: number[] = [];
    handle.events.on("tools.refreshed", () => {
      refreshes.push(now());
    });
    const run = registry.createRun();
    // The first find_tool indexes the 4,000 tools: a cost of connecting, not of the flood.
    await run.call("find_tool", { query: "reads files tool 42" });
    // Measured: the share of the time the host spends refreshing, each refresh from the server's
    // tools/list (the server notes when) to the host's tools.refreshed, over whole cycles: from
    // the end of one refresh to the end of the first one at least 4 s later (at most 90 s each: a
    // refresh of 7.7 s at load 40 is paced 60 s, the cap). The
    // host's CPU over wall time, measured before, read the machine's load as much as the code: CPU
    // the process never got at load 8+ passed the old code, and the first find_tool's indexing
    // (0.6 s of CPU) failed the new one 1 run in 5 alone. Both ends of a refresh, and the pause
    // the pacing puts after it, are stretched alike by the load: the share is the pacing's.
    const started = now();
    const refreshedAfter = (time: number) => refreshes.filter((at) => at > time);
    while (refreshedAfter(started).length === 0 && now() - started < 90_000) {
      await run.call("find_tool", { query: "reads files tool 42" });
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const first = refreshedAfter(started)[0] ?? started;
    const done = () => refreshedAfter(first).some((at) => at - first >= 4_000);
    while (!done() && now() - first < 90_000) {
      await run.call("find_tool", { query: "reads files tool 42" });
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const last = refreshedAfter(first).find((at) => at - first >= 4_000);
    if (last === undefined) throw new Error(`no whole cycle in 90 s: refreshes at ${refreshes.map(Math.round).join(", ")}`);
    const requested = (await readFile(listings, "utf8")).split("\n").filter(Boolean).map(Number);
    // Each refresh in the window, from its tools/list (the last one the server noted before the
    // host's tools.refreshed) to its end, and the pause before it: from the refresh before it
    // ended to its own tools/list.
    const ends = refreshes.filter((at) => at >= first && at <= last);
    const listedBefore = (at: number) => Math.max(...requested.filter((time) => time <= at));
    const cycles = ends.slice(1).map((end, index) => {
      const before = ends[index] ?? first;
      return { pause: listedBefore(end) - before, span: end - listedBefore(end), spanBefore: before - listedBefore(before) };
    });
    const shown = cycles.map((cycle) => `${Math.round(cycle.pause)} ms pause, ${Math.round(cycle.span)} ms refresh`).join("; ");
    const share = cycles.reduce((sum, cycle) => sum + cycle.span, 0) / (last - first);
    // Measured: each pause against the refresh before it, the pace the host sets. The share of the
    // window against a fixed 0.15, measured before, read the load's swings: the window holds one
    // or two cycles, and a refresh 1.6 times as long as the one whose pause came before it makes
    // 0.15 with the pacing exact (0.1515 failed a run beside other test runs, 2 cores). The
    // product cannot meet this by luck: its pause starts no earlier than the host's
    // tools.refreshed (emitted before the refresh's end is taken) and ends no later than the
    // server's tools/list (sent after), and its refresh's duration spans the test's. 20 ms: the
    // two processes' clocks (performance.timeOrigin, each read at its start). Old code (the pause
    // counted at the notice, from the last refresh ended, capped at 5 s): a share of 0.68 at load
    // 20 (1.0-1.6 s refreshes, 3 in 6.1 s), 1.00 at load 34 (end to end); paced: 0.04 at load 20.
    console.log(`list_changed flood at load ${loadavg()[0]?.toFixed(1)}: ${shown}; share ${share.toFixed(3)}`);
    for (const cycle of cycles) {
      expect(cycle.pause, `${shown} (share ${share.toFixed(3)})`).toBeGreaterThanOrEqual(
        Math.min(9 * cycle.spanBefore, 60_000) - 20,
      );
    }
    expect(cycles.length, shown).toBeGreaterThan(0);
    // Positive control: the refreshes still happen, so a tool the server adds is registered, within
    // the pace's cap (60 s) and a refresh: 4.7 s refreshes at load 23-34 are paced 42 s.
    run.activate(["mcp_flood_grow"]);
    expect(await run.call("mcp_flood_grow", {})).toMatchObject({ ok: true });
    await expect.poll(() => registry.has("mcp_flood_added"), { timeout: 90_000 }).toBe(true);
  }, 300_000);
});
