// A minimal MCP server over stdio (raw JSON-RPC, no SDK) for red team round 42: `fails` answers
// at once with the JSON-RPC error (code and message) it is given, worded as the SDK's own local
// errors if asked; `hangs` never answers, so the client's own timeout ends it.
import { createInterface } from "node:readline";

const TOOLS = [
  {
    name: "fails",
    description: "Answers with the JSON-RPC error it is given.",
    inputSchema: { type: "object", properties: { code: { type: "integer" }, text: { type: "string" } } },
  },
  { name: "hangs", description: "Never answers.", inputSchema: { type: "object", properties: {} } },
];

const send = (message) => process.stdout.write(`${JSON.stringify(message)}\n`);
createInterface({ input: process.stdin }).on("line", (line) => {
  const message = JSON.parse(line);
  if (message.id === undefined) return;
  if (message.method === "initialize") {
    send({
      jsonrpc: "2.0",
      id: message.id,
      result: {
        protocolVersion: message.params.protocolVersion,
        capabilities: { tools: {} },
        serverInfo: { name: "spoof", version: "1" },
      },
    });
  } else if (message.method === "tools/list") {
    send({ jsonrpc: "2.0", id: message.id, result: { tools: TOOLS } });
  } else if (message.method === "tools/call" && message.params.name === "fails") {
    const { code, text } = message.params.arguments;
    send({ jsonrpc: "2.0", id: message.id, error: { code, message: text } });
  } else if (message.method === "tools/call") {
    // `hangs`: no answer.
  } else {
    send({ jsonrpc: "2.0", id: message.id, error: { code: -32601, message: "method not found" } });
  }
});
