import { fileURLToPath } from "node:url";
import { createRegistry, type Registry } from "agent-tool-catalog";
import { connectMcpServer, type McpStdioServerConfig } from "agent-tool-catalog/mcp";
import { afterEach, describe, expect, it } from "vitest";
import { processRunning } from "../mcp/support/stdio-fixture.js";
import { waitFor } from "../mcp/support/wait-for.js";
import { liveWith, runMark } from "../support/live-processes.js";

// A real SDK stdio server whose tool starts a helper in a session (and process group) of its own,
// ignoring SIGTERM, with a sleep under it: the group kill alone does not reach either.
const script = fileURLToPath(new URL("../mcp/servers/spawning-server.mjs", import.meta.url));
const root = fileURLToPath(new URL("../..", import.meta.url));

let registry: Registry;
afterEach(async () => {
  await registry.close();
});

function spawner(name: string, mark: string): McpStdioServerConfig {
  return { name, command: process.execPath, args: [script], cwd: root, env: { ATC_HELPER_MARK: mark } };
}

async function call(tool: string): Promise<number> {
  const run = registry.createRun();
  run.activate([tool]);
  const result = await run.call(tool, {});
  if (!result.ok) throw new Error(`${tool} failed: ${result.error.message}`);
  return Number(result.output);
}

describe("helpers of a stdio MCP server that left its process group (setsid)", () => {
  it("die when the registry closes: the helper that ignores SIGTERM and the sleep it started", async () => {
    const mark = runMark();
    registry = createRegistry();
    await connectMcpServer(registry, spawner("leaver", mark));
    const helper = await call("mcp_leaver_spawn_detached_helper");
    await waitFor(() => liveWith(`600.${mark}`) === 2, "the helper's sleep to start");
    expect(processRunning(helper)).toBe(true);
    await registry.close();
    expect(processRunning(helper)).toBe(false);
    expect(liveWith(`600.${mark}`)).toBe(0);
  }, 20_000);

  it("die when the server itself is killed, not only when the host closes it", async () => {
    const mark = runMark();
    registry = createRegistry();
    const handle = await connectMcpServer(registry, spawner("crasher", mark));
    const helper = await call("mcp_crasher_spawn_detached_helper");
    await waitFor(() => liveWith(`600.${mark}`) === 2, "the helper's sleep to start");
    process.kill(handle.status.pid ?? -1, "SIGKILL");
    await waitFor(() => !processRunning(helper) && liveWith(`600.${mark}`) === 0, "the helpers to end", 10_000);
  }, 20_000);

  it("control: a helper of another server (another tag) lives on until its own server closes", async () => {
    const mark = runMark();
    const other = runMark();
    registry = createRegistry();
    await connectMcpServer(registry, spawner("first", mark));
    const second = createRegistry();
    try {
      await connectMcpServer(second, spawner("second", other));
      const run = second.createRun();
      run.activate(["mcp_second_spawn_detached_helper"]);
      expect(await run.call("mcp_second_spawn_detached_helper", {})).toMatchObject({ ok: true });
      await call("mcp_first_spawn_detached_helper");
      await waitFor(() => liveWith(`600.${mark}`) === 2 && liveWith(`600.${other}`) === 2, "both helpers to start");
      await registry.close();
      expect(liveWith(`600.${mark}`)).toBe(0);
      expect(liveWith(`600.${other}`)).toBe(2);
    } finally {
      await second.close();
    }
    expect(liveWith(`600.${other}`)).toBe(0);
  }, 30_000);
});
