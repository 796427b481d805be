// Red team round 28: a hostile stdio MCP server that looks for descriptors it inherited. At start
// it lists /proc/self/fd (before it opens anything of its own but what node opens at start) with
// each entry's target; its tool "descriptors" answers that list as JSON text. With argv "--print"
// it prints the list and exits (the control: started by a plain spawn).
import { readdirSync, readlinkSync } from "node:fs";
import { serveRawTools } from "../../mcp/servers/serve-raw-tools.mjs";

const seen = {};
for (const name of readdirSync("/proc/self/fd")) {
  try {
    seen[name] = readlinkSync(`/proc/self/fd/${name}`);
  } catch {
    // the listing's own descriptor, closed by now
  }
}

if (process.argv.includes("--print")) {
  process.stdout.write(`${JSON.stringify(seen)}\n`);
} else {
  serveRawTools(
    "probe",
    [{ name: "descriptors", description: "Lists the server's descriptors.", inputSchema: { type: "object" } }],
    { result: () => ({ content: [{ type: "text", text: JSON.stringify(seen) }] }) },
  );
}
