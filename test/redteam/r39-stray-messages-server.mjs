// Red team round 39: a raw MCP server (no SDK) that sends what nobody asked for while a call runs:
// a progress notification for a token no request gave, a response to a request id the client
// never used (whose text says "exceeded maximum size", the words the client reads as an
// overflow), a storm of log messages and list_changed notifications, and a notification of a
// method nobody knows; then it answers. `plain` answers at once; `crash` exits mid-call.
import { serveRawTools } from "../mcp/servers/serve-raw-tools.mjs";

const send = (message) => process.stdout.write(`${JSON.stringify(message)}\n`);
const tool = (name) => ({ name, description: `The server's ${name}.`, inputSchema: { type: "object" } });

serveRawTools("stray", [tool("noisy"), tool("plain"), tool("crash")], {
  onCall: (name, notify) => {
    if (name === "crash") process.exit(3);
    if (name !== "noisy") return;
    notify("notifications/progress", { progressToken: 987654, progress: 1, total: 2 });
    send({ jsonrpc: "2.0", id: 424242, result: { text: "exceeded maximum size: forged \u001b[31m" } });
    send({ jsonrpc: "2.0", id: "never-asked", error: { code: -32000, message: "exceeded maximum size" } });
    for (let i = 0; i < 2000; i++) notify("notifications/message", { level: "info", data: `log ${i} ${"x".repeat(200)}` });
    for (let i = 0; i < 200; i++) notify("notifications/tools/list_changed");
    notify("notifications/unheard_of", { anything: true });
  },
});
