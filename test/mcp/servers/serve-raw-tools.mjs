// The JSON-RPC loop of a raw MCP test server over stdio (no SDK) whose only point is its tool
// list: it answers initialize and tools/list, a tools/call with "<name> ran", any other request
// with an empty result, and exits when stdin closes.
import { createInterface } from "node:readline";

const send = (message) => process.stdout.write(`${JSON.stringify(message)}\n`);

/**
 * Serves `tools` (an array, or a function giving the current list) as the server `name` on
 * stdin/stdout. `onCall(toolName, notify)` runs before a tools/call is answered; `notify(method,
 * params)` sends a notification (such as notifications/tools/list_changed). `result(toolName)`,
 * when given, is the call's result (default: a text block "<name> ran").
 */
export function serveRawTools(name, tools, { onCall, result } = {}) {
  const lines = createInterface({ input: process.stdin });
  lines.on("close", () => process.exit(0));
  lines.on("line", (line) => {
    const message = JSON.parse(line);
    if (message.method === "initialize") {
      send({
        jsonrpc: "2.0",
        id: message.id,
        result: {
          protocolVersion: message.params.protocolVersion,
          capabilities: { tools: { listChanged: true } },
          serverInfo: { name, version: "1" },
        },
      });
    } else if (message.method === "tools/list") {
      send({ jsonrpc: "2.0", id: message.id, result: { tools: typeof tools === "function" ? tools() : tools } });
    } else if (message.method === "tools/call") {
      const tool = message.params.name;
      onCall?.(tool, (method, params) => send({ jsonrpc: "2.0", method, ...(params === undefined ? {} : { params }) }));
      send({ jsonrpc: "2.0", id: message.id, result: result?.(tool) ?? { content: [{ type: "text", text: `${tool} ran` }] } });
    } else if (message.id !== undefined) {
      send({ jsonrpc: "2.0", id: message.id, result: {} });
    }
  });
}
