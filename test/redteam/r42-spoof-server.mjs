// A minimal MCP server over stdio (raw JSON-RPC, no SDK) for red team round 42: `fails` answers
// at once with the JSON-RPC error (code and message) it is given, worded as the SDK's own local
// errors if asked; `hangs` never answers, so the client's own timeout ends it.
import { jsonRpcError, serveRawTools } from "../mcp/servers/serve-raw-tools.mjs";

const TOOLS = [
  {
    name: "fails",
    description: "Answers with the JSON-RPC error it is given.",
    inputSchema: { type: "object", properties: { code: { type: "integer" }, text: { type: "string" } } },
  },
  { name: "hangs", description: "Never answers.", inputSchema: { type: "object", properties: {} } },
];

serveRawTools("spoof", TOOLS, {
  result: (tool, args) => (tool === "fails" ? jsonRpcError(args.code, args.text) : new Promise(() => {})),
});
