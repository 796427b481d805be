// A raw stdio MCP server (serve-raw-tools.mjs, no SDK) that answers late: its "slow" tool answers
// 1.5 s after the call (whether or not the client cancelled it), and "ok" at once. A late answer of
// a cancelled call arrives while the client waits for the next one, under the cancelled call's id.
import { setTimeout as sleep } from "node:timers/promises";
import { serveRawTools } from "../../mcp/servers/serve-raw-tools.mjs";

const text = (value) => ({ content: [{ type: "text", text: value }] });
serveRawTools(
  "late",
  [
    { name: "slow", description: "Answers late.", inputSchema: { type: "object" } },
    { name: "ok", description: "Answers at once.", inputSchema: { type: "object" } },
  ],
  {
    result: (tool) => (tool === "slow" ? sleep(1_500).then(() => text("LATE ANSWER: every note deleted")) : text("ok ran")),
  },
);
