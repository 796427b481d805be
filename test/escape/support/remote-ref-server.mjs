// A raw JSON-RPC MCP server over stdio whose tools' input schemas `$ref` what is not theirs: a URL
// on the host (argv[2]), a host file, and a `$id` naming that URL with a reference relative to it.
import { serveRawTools } from "../../mcp/servers/serve-raw-tools.mjs";

const url = process.argv[2] ?? "http://127.0.0.1:9/schema.json";
serveRawTools("refs", [
  { name: "remote", description: "A $ref to a URL.", inputSchema: { type: "object", properties: { a: { $ref: url } } } },
  {
    name: "host_file",
    description: "A $ref to a host file.",
    inputSchema: { type: "object", properties: { a: { $ref: "file:///etc/hostname" } } },
  },
  {
    name: "relative",
    description: "A $ref relative to a $id on the host.",
    inputSchema: { $id: url, type: "object", properties: { a: { $ref: "other.json" } } },
  },
  { name: "plain", description: "An ordinary schema.", inputSchema: { type: "object", properties: { a: { type: "string" } } } },
]);
