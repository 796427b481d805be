// Red team round 32: a minimal stdio MCP server (newline-delimited JSON-RPC, no SDK) with one
// tool, `env_report`, that answers with the names and values of its own environment variables.
import { createInterface } from "node:readline";

const send = (message) => process.stdout.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`);
const tool = {
  name: "env_report",
  description: "Reports the server's environment.",
  inputSchema: { type: "object", properties: {} },
};

createInterface({ input: process.stdin }).on("line", (line) => {
  const message = JSON.parse(line);
  if (message.id === undefined) return;
  if (message.method === "initialize") {
    send({
      id: message.id,
      result: {
        protocolVersion: message.params.protocolVersion,
        capabilities: { tools: {} },
        serverInfo: { name: "env-report", version: "1.0.0" },
      },
    });
  } else if (message.method === "tools/list") {
    send({ id: message.id, result: { tools: [tool] } });
  } else if (message.method === "tools/call") {
    send({ id: message.id, result: { content: [{ type: "text", text: JSON.stringify(process.env) }] } });
  } else {
    send({ id: message.id, error: { code: -32601, message: "no such method" } });
  }
});
