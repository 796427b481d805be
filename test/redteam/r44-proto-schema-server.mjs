// A raw MCP server (no SDK) for red team round 44: `proto` has a required input field named
// "__proto__" (a valid JSON Schema property name), `loose` the same field not required, `plain`
// an ordinary field, for the control. Each echoes the arguments it got.
import { serveRawTools } from "../mcp/servers/serve-raw-tools.mjs";

// Parsed, not written as a literal: a literal `__proto__` key sets the prototype instead.
const schema = (field, required) =>
  JSON.parse(
    `{"type":"object","properties":{"${field}":{"type":"string","description":"the target"}},"required":${required ? `["${field}"]` : "[]"}}`,
  );

serveRawTools(
  "odd",
  [
    { name: "proto", description: "Echoes its arguments.", inputSchema: schema("__proto__", true) },
    { name: "loose", description: "Echoes its arguments.", inputSchema: schema("__proto__", false) },
    { name: "plain", description: "Echoes its arguments.", inputSchema: schema("target", true) },
  ],
  { result: (_tool, args) => ({ content: [{ type: "text", text: JSON.stringify(args) }] }) },
);
