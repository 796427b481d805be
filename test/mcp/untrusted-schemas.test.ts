// An MCP server's input schemas are untrusted. Bounds at connect keep the worst ones out, but a
// schema within them still made the validator slow on the host's thread: 30 levels of 6 nested
// self-references compiled for 1-2.5 s at the first call, and an anyOf that checks a nested
// value twice per level took 2^depth steps (1.4 s at depth 24, minutes at 30) for every call.
// Now both run in a worker thread with a time limit; the host's event loop keeps turning.
import path from "node:path";
import { createRegistry, type Registry } from "agent-tool-catalog";
import { connectMcpServer, type McpServerHandle } from "agent-tool-catalog/mcp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { longestHold } from "../support/event-loop-hold.js";
import { threadTimes } from "../support/thread-time.js";

const SERVER = path.join(import.meta.dirname, "servers", "slow-schema-server.mjs");
/** The schema's limit: the check thread's CPU time (Linux), so the machine's load does not use it. */
const SCHEMA_TIMEOUT_MS = 400;
/** The host's longest event-loop block allowed while the hostile calls run (they took seconds before). */
const MAX_BLOCK_MS = 400;

let registry: Registry;
let handle: McpServerHandle;

beforeAll(async () => {
  registry = createRegistry();
  handle = await connectMcpServer(registry, {
    name: "slow",
    command: process.execPath,
    args: [SERVER],
    schemaTimeoutMs: SCHEMA_TIMEOUT_MS,
    timeoutMs: 20_000,
  });
});

afterAll(async () => {
  await registry.close();
});

/**
 * Runs `work` while watching the host's event loop: its longest hold (a 1 ms timer's wall time
 * between ticks less the thread's wait for a CPU, test/support/event-loop-hold.ts), the ticks
 * of a 20 ms timer, and the time the thread could run meanwhile (wall time less its wait for a
 * CPU: a starved thread misses ticks it never had the CPU for). `monitorEventLoopDelay`'s
 * wall-time maximum read the load: 640 ms at load 35 (2 cores, 8 busy loops beside) for a
 * compile that ran in its worker.
 */
async function watchingTheEventLoop<T>(
  work: () => Promise<T>,
): Promise<{ result: T; longestBlockMs: number; ticks: number; availableMs: number }> {
  let ticks = 0;
  const timer = setInterval(() => ticks++, 20);
  const before = threadTimes();
  try {
    const { result, longestMs } = await longestHold(work);
    const after = threadTimes();
    const availableMs = after.wallMs - before.wallMs - (after.waitedMs - before.waitedMs);
    return { result, longestBlockMs: longestMs, ticks, availableMs };
  } finally {
    clearInterval(timer);
  }
}

/** CPU time (user + system) of this process, every thread (the schema check threads too), since `since`, in ms. */
const cpuSince = (since: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
};

function deeplyNested(depth: number): Record<string, unknown> {
  let node: Record<string, unknown> = {};
  for (let level = 0; level < depth; level++) node = { child: node };
  return { tree: node };
}

describe("untrusted MCP input schemas", () => {
  it("connects all three tools: the connect-time checks pass them", () => {
    expect(handle.status.rejected).toEqual([]);
    expect(handle.status.tools).toEqual(["mcp_slow_nested_refs", "mcp_slow_double_check", "mcp_slow_plain"]);
  });

  it("compiles a schema built to be slow off the host's thread and fails the call with input_schema_too_slow", async () => {
    const run = registry.createRun();
    run.activate(["mcp_slow_nested_refs", "mcp_slow_plain"]);
    const { result, longestBlockMs, ticks, availableMs } = await watchingTheEventLoop(() =>
      run.call("mcp_slow_nested_refs", { n: { n: {} } }),
    );
    expect(result).toMatchObject({
      ok: false,
      error: {
        code: "input_schema_too_slow",
        message: expect.stringMatching(/"mcp_slow_nested_refs": Compiling this tool's input schema took longer than 400 ms/),
        hint: expect.stringMatching(/Use another tool/),
      },
    });
    expect(longestBlockMs).toBeLessThan(MAX_BLOCK_MS);
    // The timer kept firing while the thread compiled (20 ms ticks over the time the host's thread could run).
    expect(ticks).toBeGreaterThanOrEqual(Math.floor(availableMs / 20 / 4));
    // It fails at once from now on (compiling again would cost the same), and stays listed.
    const again = process.cpuUsage();
    expect(await run.call("mcp_slow_nested_refs", {})).toMatchObject({ ok: false, error: { code: "input_schema_too_slow" } });
    // Compiling again would run the thread to the 400 ms limit of CPU time (it compiles for 1-2.5 s
    // of it), which this process's CPU time counts; the wall time here was the load's (2 cores, load 35).
    expect(cpuSince(again)).toBeLessThan(SCHEMA_TIMEOUT_MS);
    expect(registry.list().map((tool) => tool.name)).toContain("mcp_slow_nested_refs");
    expect(handle.status.tools).toContain("mcp_slow_nested_refs");
    // positive control: an ordinary tool of the same server validates (in the thread) and runs
    expect(await run.call("mcp_slow_plain", { text: "hi" })).toMatchObject({ ok: true, output: "plain ran" });
    expect(await run.call("mcp_slow_plain", { text: 5 })).toMatchObject({
      ok: false,
      error: { code: "invalid_input", issues: [{ path: "text", message: "must be string" }] },
    });
  }, 60_000);

  it("stops a check that takes 2^depth steps at the time limit; shallow arguments still check and run", async () => {
    const run = registry.createRun();
    run.activate(["mcp_slow_double_check"]);
    // positive control: the schema compiles, and shallow arguments check fast
    expect(await run.call("mcp_slow_double_check", deeplyNested(3))).toMatchObject({ ok: true, output: "double_check ran" });
    const { result, longestBlockMs, ticks, availableMs } = await watchingTheEventLoop(() =>
      run.call("mcp_slow_double_check", deeplyNested(26)),
    );
    expect(result).toMatchObject({
      ok: false,
      error: {
        code: "input_schema_too_slow",
        message: expect.stringMatching(/Checking these arguments against this tool's input schema took longer than 400 ms/),
        hint: expect.stringMatching(/less deeply nested arguments/),
      },
    });
    expect(longestBlockMs).toBeLessThan(MAX_BLOCK_MS);
    expect(ticks).toBeGreaterThanOrEqual(Math.floor(availableMs / 20 / 4));
    // A slow check fails only that call: the tool still takes shallow arguments.
    expect(await run.call("mcp_slow_double_check", deeplyNested(2))).toMatchObject({ ok: true, output: "double_check ran" });
  }, 60_000);
});
