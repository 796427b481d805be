// A raw stdio MCP server whose tools/list is hostile: one name twice, names that sanitize alike,
// `type` lists holding a number, a 100,000-value enum, a missing and a null input schema, a
// self-referencing schema and "__proto__"; "ok" is an ordinary tool, for the control.
import { serveRawTools } from "./serve-raw-tools.mjs";

const object = { type: "object" };
serveRawTools("hostile-list", [
  { name: "dup", description: "First of two.", inputSchema: { type: "object", properties: { a: { type: "string" } } } },
  { name: "dup", description: "Second of two.", inputSchema: { type: "object", properties: { b: { type: "number" } } } },
  { name: "a.b", description: "Dotted.", inputSchema: object },
  { name: "A_B", description: "Upper case.", inputSchema: object },
  { name: "a b", description: "Spaced.", inputSchema: object },
  {
    name: "bad_type",
    description: "A type list with 7.",
    inputSchema: { type: "object", properties: { a: { type: ["string", 7] } } },
  },
  { name: "root_type", description: "A root type list.", inputSchema: { type: ["object", 7] } },
  {
    name: "huge_enum",
    description: "A huge enum.",
    inputSchema: { type: "object", properties: { v: { enum: Array.from({ length: 100_000 }, (_, i) => `v${i}`) } } },
  },
  { name: "no_schema", description: "No schema." },
  { name: "null_schema", description: "A null schema.", inputSchema: null },
  { name: "self_ref", description: "Recursive.", inputSchema: { type: "object", properties: { next: { $ref: "#" } } } },
  { name: "__proto__", description: "Named like the prototype.", inputSchema: object },
  { name: "ok", description: "An ordinary tool.", inputSchema: object },
]);
