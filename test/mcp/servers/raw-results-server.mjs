// A raw MCP server over stdio (no SDK, so nothing checks what it sends) whose tools answer with
// results a conforming server never sends: `unknown_block` a text block beside a content block of a
// type the spec does not have, `progress_flood` 2,000 progress notifications (for a token the
// client never sent) before its answer.
import { createInterface } from "node:readline";

const send = (message) => process.stdout.write(`${JSON.stringify(message)}\n`);
const tools = ["unknown_block", "progress_flood", "only_unknown"].map((name) => ({
  name,
  description: `${name} tool`,
  inputSchema: { type: "object" },
}));
const results = {
  unknown_block: {
    content: [
      { type: "text", text: "the answer is 42" },
      { type: "hologram", frames: 3 },
    ],
  },
  only_unknown: { content: [{ type: "hologram", frames: 3 }] },
  progress_flood: { content: [{ type: "text", text: "done" }] },
};

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
        serverInfo: { name: "raw", version: "1" },
      },
    });
  } else if (message.method === "tools/list") {
    send({ jsonrpc: "2.0", id: message.id, result: { tools } });
  } else if (message.method === "tools/call") {
    const name = message.params.name;
    if (name === "progress_flood") {
      for (let i = 0; i < 2000; i++)
        send({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: i, progress: i } });
    }
    send({ jsonrpc: "2.0", id: message.id, result: results[name] });
  } else if (message.id !== undefined) {
    send({ jsonrpc: "2.0", id: message.id, result: {} });
  }
});
