// A raw JSON-RPC MCP server over stdio (no SDK) whose input schemas pass every check at connect
// yet make the validator slow: "nested_refs" (30 levels that each refer 6 times to themselves:
// seconds to compile), "double_check" (an anyOf whose first branch checks the nested value and
// then fails, so every level checks it twice: 2^depth work for an argument nested depth deep),
// and "plain", an ordinary schema.
import { serveRawTools } from "./serve-raw-tools.mjs";
import { doubleCheck, nestedRefs } from "./slow-schemas.mjs";

const tools = [
  { name: "nested_refs", description: "A schema that takes seconds to compile.", inputSchema: nestedRefs(30, 6) },
  { name: "double_check", description: "A schema that checks nested arguments in 2^depth steps.", inputSchema: doubleCheck },
  {
    name: "plain",
    description: "An ordinary tool.",
    inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
  },
];
serveRawTools("slow-schemas", tools);
