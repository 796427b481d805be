// A raw stdio MCP server (serve-raw-tools.mjs, no SDK) listing "fat", whose input schema holds a
// property description of argv[2] KiB (a tool's own description is cut at 4,000 characters; one
// inside its schema was not), and "ok", an ordinary tool for the control.
import { serveRawTools } from "../../mcp/servers/serve-raw-tools.mjs";

const description = "x".repeat(Number(process.argv[2] ?? 9216) * 1024);
serveRawTools("fat", [
  {
    name: "fat",
    description: "A schema with a long description.",
    inputSchema: { type: "object", properties: { a: { type: "string", description } } },
  },
  { name: "ok", description: "Answers.", inputSchema: { type: "object" } },
]);
