// A raw JSON-RPC MCP server over stdio (no SDK) with hostile results: "many_images" answers with
// 100,000 tiny valid PNG-typed images (3 bytes each: far under any byte budget), "three_images"
// with three (the positive control), and "garbage" prints lines that are not JSON-RPC on stdout
// (a progress bar, broken JSON, a bare array, a message without id or method) before its answer.
import { createInterface } from "node:readline";

const send = (message) => process.stdout.write(`${JSON.stringify(message)}\n`);
const tools = ["many_images", "three_images", "garbage"].map((name) => ({
  name,
  description: name,
  inputSchema: { type: "object" },
}));
const images = (count) => Array.from({ length: count }, () => ({ type: "image", mimeType: "image/png", data: "AAAA" }));
const lines = createInterface({ input: process.stdin });
lines.on("close", () => process.exit(0));
lines.on("line", (line) => {
  const message = JSON.parse(line);
  const answer = (result) => send({ jsonrpc: "2.0", id: message.id, result });
  if (message.method === "initialize") {
    answer({
      protocolVersion: message.params.protocolVersion,
      capabilities: { tools: {} },
      serverInfo: { name: "parts", version: "1" },
    });
  } else if (message.method === "tools/list") answer({ tools });
  else if (message.method === "tools/call") {
    const name = message.params.name;
    if (name === "many_images") answer({ content: [{ type: "text", text: "frames:" }, ...images(100_000)] });
    else if (name === "three_images") answer({ content: [{ type: "text", text: "frames:" }, ...images(3)] });
    else {
      process.stdout.write('Loading model... 45%\nnot json {\n\n[1,2]\n{"jsonrpc":"2.0"}\n');
      answer({ content: [{ type: "text", text: "after garbage" }] });
    }
  } else if (message.id !== undefined) answer({});
});
