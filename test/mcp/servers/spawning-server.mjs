// A real stdio MCP server (the SDK's McpServer, plain JavaScript for a fast start) whose tool
// starts a grandchild process, as servers that wrap browsers or language servers do.
// `--stubborn` makes the grandchild ignore SIGTERM, so only SIGKILL ends it.
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
server.registerTool("pid", { description: "The server's process id." }, () => ({
  content: [{ type: "text", text: String(process.pid) }],
}));
await server.connect(new StdioServerTransport());
