// A raw stdio MCP server whose "shrink" tool removes its "gone" tool from the list and announces
// it (notifications/tools/list_changed) before answering; "echo" stays.
import { serveRawTools } from "./serve-raw-tools.mjs";

let shrunk = false;
const object = { type: "object", properties: { text: { type: "string" } } };
serveRawTools(
  "shrinking",
  () => [
    { name: "echo", description: "Echoes text.", inputSchema: object },
    { name: "shrink", description: "Removes the tool named gone.", inputSchema: { type: "object" } },
    ...(shrunk ? [] : [{ name: "gone", description: "Removed by shrink.", inputSchema: { type: "object" } }]),
  ],
  {
    onCall: (tool, notify) => {
      if (tool !== "shrink") return;
      shrunk = true;
      notify("notifications/tools/list_changed");
    },
  },
);
