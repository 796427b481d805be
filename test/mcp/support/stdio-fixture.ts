import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { McpStdioServerConfig } from "agent-tool-catalog/mcp";

// Plain JavaScript by an absolute path: it starts as plain node, also from a cwd outside the project.
const script = fileURLToPath(new URL("../servers/stdio-fixture-server.mjs", import.meta.url));
const root = fileURLToPath(new URL("../../..", import.meta.url));

/** The config of a stdio fixture server: this Node running the fixture script. */
export function stdioFixture(
  name: string,
  options: Partial<Omit<McpStdioServerConfig, "command" | "name">> & { hostile?: boolean } = {},
): McpStdioServerConfig {
  const { hostile, ...rest } = options;
  return {
    name,
    command: process.execPath,
    args: [script, ...(hostile === true ? ["--hostile"] : [])],
    cwd: root,
    ...rest,
  };
}

/** True while a process with this id exists. */
export function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * True while a process with this id runs. Unlike {@link processExists}, a zombie (dead, not yet
 * reaped by init) does not count: an orphaned helper is reaped by whatever pid 1 the machine has.
 */
export function processRunning(pid: number): boolean {
  if (!processExists(pid)) return false;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[0] !== "Z";
  } catch {
    return process.platform !== "linux";
  }
}
