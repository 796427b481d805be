// A raw MCP server over stdio (no SDK) whose tools answer with `structuredContent` nested as deep
// as the call's `depth` argument: `structured` has an output schema, `unchecked` none. The answer
// is given as JSON text, since JSON.stringify of such a value overflows the server's own stack.
import { rawJson, serveRawTools } from "./serve-raw-tools.mjs";

const tools = [
  { name: "structured", inputSchema: { type: "object" }, outputSchema: { type: "object", properties: { value: {} } } },
  { name: "unchecked", inputSchema: { type: "object" } },
];

/** `{"value":[[...["leaf"]...]]}`, the object counted as a level: `depth` levels in all. */
function nested(depth) {
  const arrays = Math.max(0, depth - 1);
  return `{"value":${"[".repeat(arrays)}"leaf"${"]".repeat(arrays)}}`;
}

serveRawTools("deep", tools, {
  result: (_tool, args) => rawJson(`{"content":[{"type":"text","text":"nested"}],"structuredContent":${nested(args.depth)}}`),
});
