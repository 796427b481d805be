// A real stdio MCP server (the SDK's McpServer, plain JavaScript for a fast start) whose tool
// starts a grandchild process, as servers that wrap browsers or language servers do.
// `--stubborn` makes the grandchild ignore SIGTERM, so only SIGKILL ends it. `spawn_detached_helper`
// starts one that leaves the group.
import { spawn } from "node:child_process";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";

const stubborn = process.argv.includes("--stubborn");
const server = new McpServer({ name: "spawner", version: "1.0.0" });
server.registerTool("spawn_helper", { description: "Starts a helper process and returns its pid." }, () => {
  const script = stubborn ? "trap '' TERM; sleep 600 & wait" : "sleep 600";
  const helper = spawn("/bin/sh", ["-c", script], { stdio: "ignore" });
  helper.unref();
  return { content: [{ type: "text", text: String(helper.pid) }] };
});
// A helper that leaves the server's process group and session (`detached` is `setsid`, as a daemon
// does), ignores SIGTERM and starts a sleep of its own (`sleep 600.<ATC_HELPER_MARK>`, to count
// them; the shell holds the text too): the group kill cannot reach them. Output to /dev/null: nothing holds the server's pipes.
server.registerTool("spawn_detached_helper", { description: "Starts a helper in a session of its own." }, () => {
  const mark = process.env.ATC_HELPER_MARK ?? "0";
  const script = `trap '' TERM; sleep 600.${mark} & wait`;
  const helper = spawn("/bin/sh", ["-c", script], { stdio: "ignore", detached: true });
  helper.unref();
  return { content: [{ type: "text", text: String(helper.pid) }] };
});
server.registerTool("pid", { description: "The server's process id." }, () => ({
  content: [{ type: "text", text: String(process.pid) }],
}));
await server.connect(new StdioServerTransport());
