// A raw JSON-RPC MCP server over stdio (no SDK) that breaks the protocol in the way argv[2] names,
// in its "hostile" tool (its "echo" tool answers normally, for the controls):
// - "hang-init": never answers initialize, and ignores SIGTERM and stdin closing;
// - "stubborn": answers, but ignores SIGTERM and stdin closing;
// - "garbage": writes lines that are not JSON-RPC before every answer;
// - "wrong-id": answers the call under another request's id; "twice": answers it twice;
// - "null-result", "odd-error", "both", "extra": answers with a message that is not a JSON-RPC
//   response ("extra": a well-formed result with an extra top-level member);
// - "string-id": answers with the request's numeric id as a string ("7" for 7);
// - "big-error": a well-formed error response with a 5 MB message;
// - "request-back": sends sampling, roots, elicitation and unknown requests before answering;
// - "die": exits during the call.
// Further arguments (a marker for counting live processes) are ignored.
import { createInterface } from "node:readline";

const mode = process.argv[2];
const send = (message) => process.stdout.write(`${JSON.stringify(message)}\n`);
const tools = [
  { name: "echo", description: "Echoes text.", inputSchema: { type: "object", properties: { text: { type: "string" } } } },
  { name: "hostile", description: "Misbehaves.", inputSchema: { type: "object" } },
];
if (mode === "stubborn" || mode === "hang-init") {
  process.on("SIGTERM", () => undefined);
  setInterval(() => undefined, 1000);
}
// The modes whose answer to a call is one message, by the request's id.
const answers = {
  "wrong-id": (id) => ({ jsonrpc: "2.0", id: id + 1000, result: { content: [{ type: "text", text: "for someone else" }] } }),
  "null-result": (id) => ({ jsonrpc: "2.0", id, result: null }),
  "odd-error": (id) => ({ jsonrpc: "2.0", id, error: { code: "bad", message: { nested: true }, data: { a: 1 } } }),
  "big-error": (id) => ({ jsonrpc: "2.0", id, error: { code: -32603, message: "E".repeat(5_000_000), data: "D".repeat(1000) } }),
  both: (id) => ({ jsonrpc: "2.0", id, result: { content: [{ type: "text", text: "r" }] }, error: { code: 1, message: "e" } }),
  extra: (id) => ({ jsonrpc: "2.0", id, result: { content: [{ type: "text", text: "r" }] }, extra: 1 }),
  "string-id": (id) => ({ jsonrpc: "2.0", id: String(id), result: { content: [{ type: "text", text: "under a string id" }] } }),
};
const lines = createInterface({ input: process.stdin });
lines.on("close", () => {
  if (mode !== "stubborn" && mode !== "hang-init") process.exit(0);
});
lines.on("line", (line) => {
  const message = JSON.parse(line);
  if (mode === "garbage") process.stdout.write("garbage line\n{not json\n\u0000\u0001\n[1,2,3]\n");
  if (message.method === "initialize") {
    if (mode === "hang-init") return;
    send({
      jsonrpc: "2.0",
      id: message.id,
      result: {
        protocolVersion: message.params.protocolVersion,
        capabilities: { tools: { listChanged: true } },
        serverInfo: { name: "hostile", version: "1" },
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
  } else if (message.method === "tools/call" && Object.hasOwn(answers, mode)) {
    send(answers[mode](message.id));
  } else if (message.method === "tools/call" && mode === "twice") {
    send({ jsonrpc: "2.0", id: message.id, result: { content: [{ type: "text", text: "first" }] } });
    send({ jsonrpc: "2.0", id: message.id, result: { content: [{ type: "text", text: "second" }] } });
  } else if (message.method === "tools/call" && mode === "request-back") {
    send({ jsonrpc: "2.0", id: "srv1", method: "sampling/createMessage", params: { messages: [], maxTokens: 10 } });
    send({ jsonrpc: "2.0", id: "srv2", method: "roots/list" });
    send({
      jsonrpc: "2.0",
      id: "srv3",
      method: "elicitation/create",
      params: { message: "hi", requestedSchema: { type: "object", properties: {} } },
    });
    send({ jsonrpc: "2.0", id: "srv4", method: "no/such" });
    setTimeout(
      () => send({ jsonrpc: "2.0", id: message.id, result: { content: [{ type: "text", text: "after requests" }] } }),
      300,
    );
  } else if (message.method === "tools/call" && mode === "die") {
    process.exit(3);
  } else if (message.method === "tools/call") {
    send({ jsonrpc: "2.0", id: message.id, result: { content: [{ type: "text", text: "ran" }] } });
  } else if (message.id !== undefined) {
    send({ jsonrpc: "2.0", id: message.id, result: {} });
  }
});
