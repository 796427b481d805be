// A minimal MCP server over stdio (raw JSON-RPC, no SDK) whose tool schemas carry regular
// expressions that backtrack exponentially: `(a+)+$` as a `pattern`, as a `patternProperties`
// key, and reached only through a `$ref` into a keyword the catalog does not know. Its tools
// answer with the arguments they got, so a test sees what reached the server.
import { createInterface } from "node:readline";

const EVIL = "(a+)+$";
const TOOLS = [
  {
    name: "pattern",
    description: "A string property with a slow pattern.",
    inputSchema: { type: "object", properties: { text: { type: "string", pattern: EVIL } }, required: ["text"] },
  },
  {
    name: "pattern_properties",
    description: "Property names checked by a slow pattern.",
    inputSchema: { type: "object", patternProperties: { [EVIL]: { type: "string" } }, additionalProperties: false },
  },
  {
    name: "hidden_ref",
    description: "A slow pattern reached through a $ref into an unknown keyword.",
    inputSchema: {
      type: "object",
      properties: { text: { $ref: "#/x-shapes/slow" } },
      "x-shapes": { slow: { type: "string", pattern: EVIL } },
    },
  },
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
        serverInfo: { name: "regex", version: "1" },
      },
    });
  } else if (message.method === "tools/list") {
    send({ jsonrpc: "2.0", id: message.id, result: { tools: TOOLS } });
  } else if (message.method === "tools/call") {
    const text = `${message.params.name} got ${JSON.stringify(message.params.arguments)}`;
    send({ jsonrpc: "2.0", id: message.id, result: { content: [{ type: "text", text }] } });
  } else {
    send({ jsonrpc: "2.0", id: message.id, error: { code: -32601, message: "method not found" } });
  }
});
