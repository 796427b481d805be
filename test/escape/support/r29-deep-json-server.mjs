// A raw stdio MCP server (serve-raw-tools.mjs, no SDK) whose answers are JSON bombs: values nested
// far deeper than any stack (JSON text built by hand, since JSON.stringify of them would overflow
// the server's own stack). argv[2] says where the nesting is: "result" (in a call's
// structuredContent and _meta), "notify" (in the params of notifications and of a request of the
// server's own, sent while the call runs, before a plain answer), "list" (in a listed tool's
// annotations and _meta, and a tool "deep_output" whose output schema is as deep).
// Its "ok" tool answers normally, for the controls.
import { createInterface } from "node:readline";

const where = process.argv[2] ?? "result";
const DEPTH = Number(process.argv[3] ?? 200_000);
const deep = (depth) => `${"[".repeat(depth)}${"]".repeat(depth)}`;
const deepObject = (depth) => `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;
const write = (text) => process.stdout.write(`${text}\n`);
const plainTools = [
  { name: "ok", description: "Answers.", inputSchema: { type: "object" } },
  { name: "bomb", description: "Answers with a deep value.", inputSchema: { type: "object" } },
];
const listText = () => {
  if (where !== "list") return JSON.stringify({ tools: plainTools });
  const ok = JSON.stringify(plainTools[0]);
  const bomb = `{"name":"bomb","description":"Deep.","inputSchema":{"type":"object"},"annotations":{"title":"t","x":${deep(DEPTH)}},"_meta":${deepObject(DEPTH)}}`;
  const deepOut = `{"name":"deep_output","description":"Deep output schema.","inputSchema":{"type":"object"},"outputSchema":{"type":"object","properties":{"x":${'{"type":"object","properties":{"x":'.repeat(DEPTH)}{}${"}}".repeat(DEPTH)}}}}`;
  return `{"tools":[${ok},${bomb},${deepOut}]}`;
};
const lines = createInterface({ input: process.stdin });
lines.on("close", () => process.exit(0));
lines.on("line", (line) => {
  const message = JSON.parse(line);
  const id = JSON.stringify(message.id);
  if (message.method === "initialize") {
    write(
      JSON.stringify({
        jsonrpc: "2.0",
        id: message.id,
        result: {
          protocolVersion: message.params.protocolVersion,
          capabilities: { tools: {} },
          serverInfo: { name: "deep", version: "1" },
        },
      }),
    );
  } else if (message.method === "tools/list") {
    write(`{"jsonrpc":"2.0","id":${id},"result":${listText()}}`);
  } else if (message.method === "tools/call") {
    if (message.params.name === "bomb" && where === "notify") {
      for (const method of [
        "notifications/message",
        "notifications/tools/list_changed",
        "notifications/progress",
        "notifications/cancelled",
      ]) {
        write(
          `{"jsonrpc":"2.0","method":"${method}","params":{"level":"info","data":${deep(DEPTH)},"_meta":${deepObject(DEPTH)}}}`,
        );
      }
      write(`{"jsonrpc":"2.0","id":"srv-1","method":"roots/list","params":{"_meta":${deepObject(DEPTH)}}}`);
      write(`{"jsonrpc":"2.0","id":${id},"result":{"content":[{"type":"text","text":"bomb ran"}]}}`);
    } else if (message.params.name === "bomb" && where === "result") {
      write(
        `{"jsonrpc":"2.0","id":${id},"result":{"content":[{"type":"text","text":"deep"}],"structuredContent":{"x":${deep(DEPTH)}},"_meta":${deepObject(DEPTH)}}}`,
      );
    } else {
      write(
        JSON.stringify({
          jsonrpc: "2.0",
          id: message.id,
          result: { content: [{ type: "text", text: `${message.params.name} ran` }] },
        }),
      );
    }
  } else if (message.id !== undefined) {
    write(JSON.stringify({ jsonrpc: "2.0", id: message.id, result: {} }));
  }
});
