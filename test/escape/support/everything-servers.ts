/**
 * What the tool-list escape attempts share: `@modelcontextprotocol/server-everything` over stdio
 * under a name of the test's choosing (the name decides how its tools are folded or hashed), its
 * tools by the server's own names, and the names a run warned about.
 */
import { fileURLToPath } from "node:url";
import type { Registry, Run } from "agent-tool-catalog";
import { connectMcpServer } from "agent-tool-catalog/mcp";

const everythingBin = fileURLToPath(
  new URL("../../../node_modules/@modelcontextprotocol/server-everything/dist/index.js", import.meta.url),
);

/** Connects a real server-everything as `name`; returns the registered names of its `echo` and `get-sum`. */
export async function connectEverything(registry: Registry, name: string): Promise<{ echo: string; sum: string }> {
  const connection = await connectMcpServer(registry, {
    name,
    command: process.execPath,
    args: [everythingBin, "stdio"],
    trusted: true,
    connectTimeoutMs: 30_000,
  });
  const named = (mcpName: string) => connection.tools().find((tool) => tool.mcpName === mcpName)?.name as string;
  return { echo: named("echo"), sum: named("get-sum") };
}

/** The entries a run warned about with diagnostics of `kind`. */
export function diagnosedNames(run: Run, kind: "unknown_load_mode_tool" | "unknown_allowed_tool"): string[] {
  return run
    .diagnostics()
    .filter((each) => each.kind === kind)
    .map((each) => each.name);
}
