// A raw JSON-RPC MCP server over stdio (no SDK) whose tools' input schemas are rings of `$ref`
// definitions, each referring to the next: "ring_<n>" for n in argv[2..] (comma separated).
import { serveRawTools } from "./serve-raw-tools.mjs";

const sizes = (process.argv[2] ?? "").split(",").map(Number);
function ring(size) {
  const defs = {};
  for (let index = 0; index < size; index++) {
    defs[`d${index}`] = {
      type: "object",
      properties: { next: { $ref: `#/$defs/d${(index + 1) % size}` }, label: { type: "string" } },
    };
  }
  return { type: "object", properties: { root: { $ref: "#/$defs/d0" } }, $defs: defs };
}
const tools = sizes.map((size) => ({
  name: `ring_${size}`,
  description: `A ring of ${size} definitions.`,
  inputSchema: ring(size),
}));
serveRawTools("rings", tools);
