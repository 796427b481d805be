// A raw JSON-RPC MCP server over stdio (no SDK) whose tools' input schemas are rings of `$ref`
// definitions, each referring to the next: "ring_<n>" for n in argv[2..] (comma separated).
import { createInterface } from "node:readline";

const sizes = (process.argv[2] ?? "").split(",").map(Number);
const send = (message) => process.stdout.write(`${JSON.stringify(message)}\n`);
function ring(size) {
  const defs = {};
  for (let index = 0; index < size; index++) {
    defs[`d${index}`] = {
      type: "object",
      properties: { next: { $ref: `#/$defs/d${(index + 1) % size}` }, label: { type: "string" } },
    };
  }
  return { type: "object", properties: { root: { $ref: "#/$defs/d0" } }, $defs: defs };
}
const tools = sizes.map((size) => ({
  name: `ring_${size}`,
  description: `A ring of ${size} definitions.`,
  inputSchema: ring(size),
}));
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
        capabilities: { tools: {} },
        serverInfo: { name: "rings", version: "1" },
      },
    });
  } else if (message.method === "tools/list") {
    send({ jsonrpc: "2.0", id: message.id, result: { tools } });
  } else if (message.method === "tools/call") {
    send({ jsonrpc: "2.0", id: message.id, result: { content: [{ type: "text", text: `${message.params.name} ran` }] } });
  } else if (message.id !== undefined) {
    send({ jsonrpc: "2.0", id: message.id, result: {} });
  }
});
