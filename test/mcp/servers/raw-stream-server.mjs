// A raw JSON-RPC MCP server over stdio (no SDK) that breaks the stream's framing, chosen by
// argv[2]: "endless" answers a call with one line that never ends, written in small chunks (as a
// pipe delivers them) and ignoring stdin closing; "mute" closes its stdout on a call but keeps
// running; "garbage" answers a call with a line of terminal escape sequences that is not JSON, then
// exits. Its "echo" tool answers normally, for the positive control after a reconnect; "research"
// may only be called as a task, which plain tools/call refuses.
import { createInterface } from "node:readline";

const mode = process.argv[2];
const send = (message) => process.stdout.write(`${JSON.stringify(message)}\n`);
const tools = [
  { name: "echo", description: "Echoes text.", inputSchema: { type: "object", properties: { text: { type: "string" } } } },
  { name: "broken", description: "Breaks the stream.", inputSchema: { type: "object" } },
  // Callable only as a task (MCP 2025-11-25), like server-everything's simulate-research-query.
  { name: "research", description: "Needs tasks.", inputSchema: { type: "object" }, execution: { taskSupport: "required" } },
  { name: "maybe_task", description: "Tasks optional.", inputSchema: { type: "object" }, execution: { taskSupport: "optional" } },
];
// Once a call broke the stream it stays alive whatever happens to stdin, like a server stuck in
// its own loop; before that it exits when stdin closes, as a well-behaved server does.
let stubborn = false;
setInterval(() => undefined, 1000);
const lines = createInterface({ input: process.stdin });
lines.on("close", () => {
  if (!stubborn) process.exit(0);
});
lines.on("line", (line) => {
  const message = JSON.parse(line);
  if (message.method === "initialize") {
    send({
      jsonrpc: "2.0",
      id: message.id,
      result: {
        protocolVersion: message.params.protocolVersion,
        capabilities: { tools: { listChanged: true } },
        serverInfo: { name: "raw", version: "1" },
      },
    });
  } else if (message.method === "tools/list") {
    send({ jsonrpc: "2.0", id: message.id, result: { tools } });
  } else if (message.method === "tools/call" && message.params.name === "echo") {
    send({
      jsonrpc: "2.0",
      id: message.id,
      result: { content: [{ type: "text", text: String(message.params.arguments?.text) }] },
    });
  } else if (message.method === "tools/call" && message.params.name === "research") {
    send({
      jsonrpc: "2.0",
      id: message.id,
      error: { code: -32601, message: "Tool research requires task augmentation (taskSupport: 'required')" },
    });
  } else if (message.method === "tools/call" && message.params.name === "maybe_task") {
    send({ jsonrpc: "2.0", id: message.id, result: { content: [{ type: "text", text: "done without a task" }] } });
  } else if (message.method === "tools/call" && mode === "endless") {
    stubborn = true;
    const chunk = "x".repeat(4096);
    const pump = () => {
      while (process.stdout.write(chunk));
      process.stdout.once("drain", pump);
    };
    pump();
  } else if (message.method === "tools/call" && mode === "mute") {
    stubborn = true;
    process.stdout.end();
  } else if (message.method === "tools/call" && mode === "garbage") {
    process.stdout.write("\x1b]0;owned\x07\x1b[2J\x1b]52;c;cm0gLXJm\x07 not json\n", () => process.exit(3));
  } else if (message.id !== undefined) {
    send({ jsonrpc: "2.0", id: message.id, error: { code: -32601, message: "not supported" } });
  }
});
