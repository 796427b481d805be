// A real stdio MCP server whose tool starts a grandchild process, as servers that wrap browsers or
// language servers do. Raw JSON-RPC (serve-raw-tools.mjs, no SDK): the test starts 32 of them, and
// the SDK's McpServer cost about 0.4 s of CPU more per start; what is tested is the processes.
// `--stubborn` makes the grandchild ignore SIGTERM, so only SIGKILL ends it.
import { spawn } from "node:child_process";
import { serveRawTools } from "./serve-raw-tools.mjs";

const stubborn = process.argv.includes("--stubborn");
const text = (value) => ({ content: [{ type: "text", text: value }] });

function spawnHelper() {
  const script = stubborn ? "trap '' TERM; sleep 600 & wait" : "sleep 600";
  const helper = spawn("/bin/sh", ["-c", script], { stdio: "ignore" });
  helper.unref();
  return helper.pid;
}

const emptyInput = { type: "object", properties: {} };
serveRawTools(
  "spawner",
  [
    { name: "spawn_helper", description: "Starts a helper process and returns its pid.", inputSchema: emptyInput },
    { name: "pid", description: "The server's process id.", inputSchema: emptyInput },
  ],
  { result: (tool) => text(String(tool === "spawn_helper" ? spawnHelper() : process.pid)) },
);
