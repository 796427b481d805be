// A raw stdio MCP server (no SDK) whose tools/list never ends: each page lists one tool and a new
// `nextCursor` of argv[2] MiB (default 9: under the client's 10 MiB message limit), so a client
// that keeps every cursor it was given (to stop at a repeated one) holds them all. Page n's tool
// is "t<n>"; "t0" is an ordinary tool for the control. argv[3]: "cursor" (the default), "short"
// (short cursors, short descriptions), "description" (short cursors, each tool's description of
// argv[2] MiB).
import { createInterface } from "node:readline";

const mib = Number(process.argv[2] ?? 9);
const short = process.argv[3] === "short" || process.argv[3] === "description";
const longDescriptions = process.argv[3] === "description";
const filler = "x".repeat(Math.floor(mib * 1024 * 1024));
const write = (message) => process.stdout.write(`${JSON.stringify(message)}\n`);
const lines = createInterface({ input: process.stdin });
lines.on("close", () => process.exit(0));
lines.on("line", (line) => {
  const message = JSON.parse(line);
  if (message.method === "initialize") {
    const capabilities = { tools: {} };
    write({
      jsonrpc: "2.0",
      id: message.id,
      result: { protocolVersion: message.params.protocolVersion, capabilities, serverInfo: { name: "cursors", version: "1" } },
    });
  } else if (message.method === "tools/list") {
    const cursor = message.params?.cursor;
    const page = cursor === undefined ? 0 : Number(cursor.split(":")[0]) + 1;
    const tool = {
      name: `t${page}`,
      description: longDescriptions ? `Page ${page}. ${filler}` : `Page ${page}.`,
      inputSchema: { type: "object" },
    };
    write({ jsonrpc: "2.0", id: message.id, result: { tools: [tool], nextCursor: `${page}:${short ? "" : filler}` } });
  } else if (message.method === "tools/call") {
    write({ jsonrpc: "2.0", id: message.id, result: { content: [{ type: "text", text: `${message.params.name} ran` }] } });
  } else if (message.id !== undefined) {
    write({ jsonrpc: "2.0", id: message.id, result: {} });
  }
});
