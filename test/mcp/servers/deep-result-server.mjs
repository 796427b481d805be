// A raw MCP server over stdio (no SDK) whose tools answer with `structuredContent` nested as deep
// as the call's `depth` argument: `structured` has an output schema, `unchecked` none. The answer
// is written as text, since JSON.stringify of such a value overflows the server's own stack.
import { createInterface } from "node:readline";

const send = (text) => process.stdout.write(`${text}\n`);
const tools = [
  { name: "structured", inputSchema: { type: "object" }, outputSchema: { type: "object", properties: { value: {} } } },
  { name: "unchecked", inputSchema: { type: "object" } },
];

/** `{"value":[[...["leaf"]...]]}`, the object counted as a level: `depth` levels in all. */
function nested(depth) {
  const arrays = Math.max(0, depth - 1);
  return `{"value":${"[".repeat(arrays)}"leaf"${"]".repeat(arrays)}}`;
}

const lines = createInterface({ input: process.stdin });
lines.on("close", () => process.exit(0));
lines.on("line", (line) => {
  const message = JSON.parse(line);
  const id = JSON.stringify(message.id);
  if (message.method === "initialize") {
    const result = {
      protocolVersion: message.params.protocolVersion,
      capabilities: { tools: {} },
      serverInfo: { name: "deep", version: "1" },
    };
    send(JSON.stringify({ jsonrpc: "2.0", id: message.id, result }));
  } else if (message.method === "tools/list") {
    send(JSON.stringify({ jsonrpc: "2.0", id: message.id, result: { tools } }));
  } else if (message.method === "tools/call") {
    const structured = nested(message.params.arguments.depth);
    send(`{"jsonrpc":"2.0","id":${id},"result":{"content":[{"type":"text","text":"nested"}],"structuredContent":${structured}}}`);
  } else if (message.id !== undefined) {
    send(JSON.stringify({ jsonrpc: "2.0", id: message.id, result: {} }));
  }
});
