import { fileURLToPath } from "node:url";
import { createRegistry, type Registry } from "agent-tool-catalog";
import { connectMcpServer, type McpStdioServerConfig } from "agent-tool-catalog/mcp";
import { describe, expect, it } from "vitest";
import { processRunning } from "./support/stdio-fixture.js";
import { waitFor } from "./support/wait-for.js";

const script = fileURLToPath(new URL("./servers/spawning-server.mjs", import.meta.url));
const root = fileURLToPath(new URL("../..", import.meta.url));

function spawner(name: string, stubborn = false): McpStdioServerConfig {
  return { name, command: process.execPath, args: [script, ...(stubborn ? ["--stubborn"] : [])], cwd: root };
}

async function callForPid(registry: Registry, tool: string): Promise<number> {
  const run = registry.createRun();
  run.activate([tool]);
  const result = await run.call(tool, {});
  if (!result.ok) throw new Error(`${tool} failed: ${result.error.message}`);
  return Number(result.output);
}

/** Connects, has the server start a helper, closes; returns the pids and whether each is gone. */
async function oneRound(index: number, stubborn = false): Promise<{ server: number; helper: number; left: number[] }> {
  const registry = createRegistry();
  try {
    const handle = await connectMcpServer(registry, spawner(`spawner${index}`, stubborn));
    const helper = await callForPid(registry, `mcp_spawner${index}_spawn_helper`);
    const server = handle.status.pid ?? -1;
    expect(processRunning(server)).toBe(true);
    expect(processRunning(helper)).toBe(true);
    await registry.close();
    return { server, helper, left: [server, helper].filter(processRunning) };
  } finally {
    await registry.close();
  }
}

describe("a stdio MCP server's own child processes", () => {
  it("die when the server is closed: 30 of 30 rounds leave neither the server nor its helper", async () => {
    const rounds: { server: number; helper: number; left: number[] }[] = [];
    // Three at a time: 30 rounds stay within a few seconds on two cores.
    for (let batch = 0; batch < 10; batch++) {
      rounds.push(...(await Promise.all([0, 1, 2].map((slot) => oneRound(batch * 3 + slot)))));
    }
    expect(rounds).toHaveLength(30);
    expect(rounds.filter((round) => round.left.length > 0)).toEqual([]);
    expect(new Set(rounds.map((round) => round.helper)).size).toBe(30);
  }, 60_000);

  it("die even when they ignore SIGTERM (SIGKILL follows after the grace period)", async () => {
    const round = await oneRound(99, true);
    expect(round.left).toEqual([]);
  }, 20_000);

  it("die when the server itself is killed, not only when the host closes it", async () => {
    const registry = createRegistry();
    try {
      const handle = await connectMcpServer(registry, spawner("crash"));
      const helper = await callForPid(registry, "mcp_crash_spawn_helper");
      const server = handle.status.pid ?? -1;
      process.kill(server, "SIGKILL");
      await waitFor(() => !processRunning(server) && !processRunning(helper), "the server and its helper to be gone", 8000);
      expect(processRunning(helper)).toBe(false);
    } finally {
      await registry.close();
    }
  }, 20_000);
});
