// A raw MCP server over stdio with argv[2] tools (4,000 by default) that sends
// notifications/tools/list_changed every argv[3] ms (120 by default; 0: never) without changing
// anything, except that from the first call of "grow" on it lists one more tool, "added".
// argv[4] (optional): a file to which the time (ms since the epoch) of every tools/list is appended.
import { appendFileSync } from "node:fs";
import { serveRawTools } from "./serve-raw-tools.mjs";

const count = Number(process.argv[2] ?? 4000);
const interval = Number(process.argv[3] ?? 120);
const listings = process.argv[4];
const tools = Array.from({ length: count }, (_, index) => ({
  name: index === 0 ? "grow" : `tool_${index}`,
  description: `Tool number ${index} reads files and text`,
  inputSchema: { type: "object", properties: { path: { type: "string" }, n: { type: "number" } } },
}));
let grown = false;
serveRawTools(
  "flood",
  () => {
    if (listings !== undefined) appendFileSync(listings, `${performance.timeOrigin + performance.now()}\n`);
    return grown ? [...tools, { name: "added", description: "Added later.", inputSchema: { type: "object" } }] : tools;
  },
  {
    onCall: (name) => {
      if (name === "grow") grown = true;
    },
  },
);
if (interval > 0) {
  setInterval(
    () => process.stdout.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/tools/list_changed" })}\n`),
    interval,
  );
}
