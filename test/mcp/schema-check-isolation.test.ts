// One hostile MCP schema must not hold up other tools' schema checks, and a schema whose compile
// timed out must not stay broken once its server fixes it. Before: the checks ran one at a time
// in one worker thread, so an ordinary tool's first call queued behind a hostile check waited
// for that check's whole time limit.
import path from "node:path";
import { createRegistry, type Registry, type ToolCallResult } from "agent-tool-catalog";
import { connectMcpServer, type McpServerHandle } from "agent-tool-catalog/mcp";
import { afterEach, describe, expect, it } from "vitest";

const SERVER = path.join(import.meta.dirname, "servers", "fixable-schema-server.mjs");

let registry: Registry;

async function connect(schemaTimeoutMs: number): Promise<McpServerHandle> {
  registry = createRegistry();
  return connectMcpServer(
    registry,
    { name: "fix", command: process.execPath, args: [SERVER], schemaTimeoutMs, timeoutMs: 30_000 },
    { listChangedDebounceMs: 10 },
  );
}

afterEach(async () => {
  await registry.close();
});

/** Calls a tool and notes when its answer came. */
async function timed(call: Promise<ToolCallResult>): Promise<{ result: ToolCallResult; at: number }> {
  const result = await call;
  return { result, at: performance.now() };
}

function deeplyNested(depth: number): Record<string, unknown> {
  let node: Record<string, unknown> = {};
  for (let level = 0; level < depth; level++) node = { child: node };
  return { tree: node };
}

describe("schema checks of untrusted MCP tools", () => {
  it("ordinary tools' first calls do not wait behind a hostile check's time limit", async () => {
    // Long enough that a wait behind the hostile check stands out from a loaded machine's noise:
    // the limit is the checking thread's CPU time (src/tool/thread-cpu-time.ts), which a second
    // thread's start (0.05-0.5 s of CPU) shares the machine with, so its wall time stretches with
    // the load as the start's does. Stop 55: 8 s, all of it a busy thread, was most of the file's CPU.
    const timeoutMs = 3_000;
    await connect(timeoutMs);
    const run = registry.createRun();
    run.activate(["mcp_fix_slow_check", "mcp_fix_plain_a", "mcp_fix_plain_b"]);
    const started = performance.now();
    // 2^30 steps: minutes, far past the limit.
    const hostile = timed(run.call("mcp_fix_slow_check", deeplyNested(30)));
    await new Promise((resolve) => setTimeout(resolve, 100));
    const [slow, a, b] = await Promise.all([
      hostile,
      timed(run.call("mcp_fix_plain_a", { a: "x" })),
      timed(run.call("mcp_fix_plain_b", { b: 5 })),
    ]);
    expect(slow.result).toMatchObject({
      ok: false,
      error: { code: "input_schema_too_slow", message: expect.stringContaining("Checking these arguments") },
    });
    expect(slow.at - started).toBeGreaterThanOrEqual(timeoutMs);
    expect(a.result).toMatchObject({ ok: true, output: "plain_a ran" });
    // positive control: the other tool's schema is really checked (in a thread), not skipped
    expect(b.result).toMatchObject({ ok: false, error: { code: "invalid_input", issues: [{ path: "b" }] } });
    // Both answered while the hostile check still ran, not after its time limit.
    expect(a.at).toBeLessThan(slow.at);
    expect(b.at).toBeLessThan(slow.at);
    // And the hostile tool still takes shallow arguments afterwards.
    expect(await run.call("mcp_fix_slow_check", deeplyNested(2))).toMatchObject({ ok: true, output: "slow_check ran" });
  }, 60_000);

  it("a schema whose compile timed out works once its server fixes it (tools/list_changed)", async () => {
    const handle = await connect(300);
    const run = registry.createRun();
    run.activate(["mcp_fix_slow_compile", "mcp_fix_fix"]);
    expect(await run.call("mcp_fix_slow_compile", { q: "x" })).toMatchObject({
      ok: false,
      error: { code: "input_schema_too_slow", message: expect.stringContaining("Compiling") },
    });
    // Still refused at once while the schema is the same: compiling it again would cost the same,
    // 300 ms of the checking thread's CPU (its limit) at least. Bounded by this process's CPU
    // (user + sys, every thread, that one's too), not wall time: a 100 ms wall bound measured the
    // machine at load 20 on 2 cores.
    const again = process.cpuUsage();
    expect(await run.call("mcp_fix_slow_compile", { q: "x" })).toMatchObject({
      ok: false,
      error: { code: "input_schema_too_slow" },
    });
    const spent = process.cpuUsage(again);
    const againCpuMs = (spent.user + spent.system) / 1000;
    if (process.env.ATC_WALL_TO_CPU) console.log(`refused again: ${Math.round(againCpuMs)} ms CPU`);
    expect(againCpuMs, "CPU ms of the second refusal").toBeLessThan(150);
    const refreshed = new Promise<void>((resolve) => {
      const off = handle.events.on("tools.refreshed", (event) => {
        if (event.updated.includes("mcp_fix_slow_compile")) {
          off();
          resolve();
        }
      });
    });
    expect(await run.call("mcp_fix_fix", {})).toMatchObject({ ok: true });
    await refreshed;
    // A changed definition is activated again (a run never takes a changed schema unseen).
    run.activate(["mcp_fix_slow_compile"]);
    const fixed = await run.call("mcp_fix_slow_compile", { q: "x" });
    expect(fixed, JSON.stringify(fixed)).toMatchObject({ ok: true, output: "slow_compile ran" });
    expect(await run.call("mcp_fix_slow_compile", { q: 1 })).toMatchObject({ ok: false, error: { code: "invalid_input" } });
  }, 60_000);
});
