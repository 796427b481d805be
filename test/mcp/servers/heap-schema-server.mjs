// A raw JSON-RPC MCP server over stdio (no SDK) whose "error_flood" input schema makes the
// validator allocate an error object per path through it (2^depth for a failing argument nested
// depth deep), and "plain", an ordinary schema.
import { serveRawTools } from "./serve-raw-tools.mjs";
import { errorFlood } from "./slow-schemas.mjs";

serveRawTools("heap-schemas", [
  { name: "error_flood", description: "A schema whose failing checks allocate 2^depth errors.", inputSchema: errorFlood },
  {
    name: "plain",
    description: "An ordinary tool.",
    inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
  },
]);
