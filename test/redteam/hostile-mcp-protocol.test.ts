/**
 * Red team round 15: raw stdio MCP servers that break the protocol (no SDK on the server side),
 * each answered with a structured error the model can act on, within a bound, leaving no process.
 * These held on the code they were written against; the defects the round found have their own
 * files (`malformed-json-rpc-answers`, `mcp-helpers-left-the-group`).
 */
import { fileURLToPath } from "node:url";
import { createRegistry, EventBus, type Registry } from "agent-tool-catalog";
import { connectMcpServer, type McpEvents, type McpStdioServerConfig } from "agent-tool-catalog/mcp";
import { afterEach, describe, expect, it } from "vitest";
import { liveWith, runMark } from "../support/live-processes.js";

const script = fileURLToPath(new URL("../mcp/servers/hostile-protocol-server.mjs", import.meta.url));
const listScript = fileURLToPath(new URL("../mcp/servers/hostile-list-server.mjs", import.meta.url));

let registry: Registry;
afterEach(async () => {
  await registry.close();
});

/** A server in `mode`, with a marker unique to this test in its command line (for `liveWith`). */
function server(name: string, mode: string, extra: Partial<McpStdioServerConfig> = {}) {
  const mark = `mark-${runMark()}`;
  return { mark, config: { name, command: process.execPath, args: [script, mode, mark], ...extra } };
}

async function connected(name: string, mode: string, extra: Partial<McpStdioServerConfig> = {}) {
  registry = createRegistry();
  const { mark, config } = server(name, mode, extra);
  const events = new EventBus<McpEvents>();
  const seen: string[] = [];
  events.on("server.connected", ({ reconnect }) => seen.push(reconnect ? "reconnected" : "connected"));
  events.on("server.disconnected", () => seen.push("disconnected"));
  await connectMcpServer(registry, config, { events });
  const run = registry.createRun();
  run.activate([`mcp_${name}_hostile`, `mcp_${name}_echo`]);
  return { run, mark, seen };
}

describe("a stdio MCP server breaking the protocol", () => {
  it("hangs on initialize and ignores SIGTERM: mcp_connect_failed within the bounds, no process left", async () => {
    registry = createRegistry();
    const { mark, config } = server("hang", "hang-init", { connectTimeoutMs: 1000 });
    const started = Date.now();
    await expect(connectMcpServer(registry, config)).rejects.toMatchObject({ code: "mcp_connect_failed" });
    // 1 s to connect, 2 s for stdin closing, 2 s after SIGTERM, then SIGKILL.
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(liveWith(mark)).toBe(0);
  }, 30_000);

  it("ignores SIGTERM and stdin closing: registry.close() returns within the bounds and the process is gone", async () => {
    const { run, mark } = await connected("stubborn", "stubborn");
    expect(await run.call("mcp_stubborn_echo", { text: "x" })).toMatchObject({ ok: true, output: "x" });
    expect(liveWith(mark)).toBe(1);
    const started = Date.now();
    await registry.close();
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(liveWith(mark)).toBe(0);
  }, 30_000);

  it("writes lines that are not JSON-RPC before its answers: the answers still arrive", async () => {
    const { run } = await connected("garbage", "garbage");
    expect(await run.call("mcp_garbage_hostile", {})).toMatchObject({ ok: true, output: "ran" });
    expect(await run.call("mcp_garbage_echo", { text: "x" })).toMatchObject({ ok: true, output: "x" });
  }, 30_000);

  it("answers under another request's id: mcp_timeout after timeoutMs, and the next call works", async () => {
    const { run } = await connected("wrongid", "wrong-id", { timeoutMs: 1500 });
    expect(await run.call("mcp_wrongid_hostile", {})).toMatchObject({ ok: false, error: { code: "mcp_timeout" } });
    expect(await run.call("mcp_wrongid_echo", { text: "x" })).toMatchObject({ ok: true, output: "x" });
  }, 30_000);

  it("answers one call twice: the first answer counts, the second is dropped", async () => {
    const { run } = await connected("twice", "twice");
    expect(await run.call("mcp_twice_hostile", {})).toMatchObject({ ok: true, output: "first" });
    expect(await run.call("mcp_twice_echo", { text: "x" })).toMatchObject({ ok: true, output: "x" });
  }, 30_000);

  it("sends sampling, roots, elicitation and unknown requests mid-call: each is answered, the call completes", async () => {
    const { run } = await connected("asks", "request-back");
    expect(await run.call("mcp_asks_hostile", {})).toMatchObject({ ok: true, output: "after requests" });
  }, 30_000);

  it("dies mid-call beside three parallel calls, then eight parallel calls: one restart, one process", async () => {
    const { run, mark, seen } = await connected("dies", "die");
    const first = await Promise.all([
      run.call("mcp_dies_hostile", {}),
      run.call("mcp_dies_echo", { text: "a" }),
      run.call("mcp_dies_echo", { text: "b" }),
    ]);
    expect(first[0]).toMatchObject({ ok: false, error: { code: "mcp_server_closed" } });
    // The echoes either ran before the exit or were cut by it: never a hang, never a crash.
    for (const result of first.slice(1)) expect(result.ok ? "ok" : result.error.code).toMatch(/^(ok|mcp_server_closed)$/);
    const second = await Promise.all(Array.from({ length: 8 }, (_, index) => run.call("mcp_dies_echo", { text: `${index}` })));
    expect(second.map((result) => (result.ok ? result.output : result.error.code))).toEqual([
      "0",
      "1",
      "2",
      "3",
      "4",
      "5",
      "6",
      "7",
    ]);
    expect(seen).toEqual(["connected", "disconnected", "reconnected"]);
    expect(liveWith(mark)).toBe(1);
  }, 30_000);
});

describe("a stdio MCP server listing hostile tools", () => {
  it("registers the usable tools and reports each other one with its reason, without failing the connect", async () => {
    registry = createRegistry();
    const handle = await connectMcpServer(registry, { name: "list", command: process.execPath, args: [listScript] });
    expect([...handle.status.tools].sort()).toEqual(["mcp_list___proto__", "mcp_list_ok", "mcp_list_self_ref"]);
    const reasons = Object.fromEntries(handle.status.rejected.map((entry) => [entry.mcpName, entry.reason]));
    expect(reasons).toEqual({
      dup: "name_collision",
      "a.b": "name_collision",
      A_B: "name_collision",
      "a b": "name_collision",
      bad_type: "invalid_input_schema",
      root_type: "invalid_input_schema",
      huge_enum: "invalid_input_schema",
      no_schema: "invalid_input_schema",
      null_schema: "invalid_input_schema",
    });
    const run = registry.createRun();
    run.activate(["mcp_list_ok", "mcp_list_self_ref", "mcp_list___proto__"]);
    expect(await run.call("mcp_list_ok", {})).toMatchObject({ ok: true, output: "ok ran" });
    expect(await run.call("mcp_list_self_ref", { next: { next: {} } })).toMatchObject({ ok: true });
    expect(await run.call("mcp_list___proto__", {})).toMatchObject({ ok: true, output: "__proto__ ran" });
    expect(await run.call("mcp_list_dup", {})).toMatchObject({ ok: false, error: { code: "unknown_tool" } });
  }, 30_000);
});
