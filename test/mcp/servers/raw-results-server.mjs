// A raw MCP server over stdio (no SDK, so nothing checks what it sends) whose tools answer with
// results a conforming server never sends: `unknown_block` a text block beside a content block of a
// type the spec does not have, `progress_flood` 2,000 progress notifications (for a token the
// client never sent) before its answer.
import { serveRawTools } from "./serve-raw-tools.mjs";

const tools = ["unknown_block", "progress_flood", "only_unknown"].map((name) => ({
  name,
  description: `${name} tool`,
  inputSchema: { type: "object" },
}));
const results = {
  unknown_block: {
    content: [
      { type: "text", text: "the answer is 42" },
      { type: "hologram", frames: 3 },
    ],
  },
  only_unknown: { content: [{ type: "hologram", frames: 3 }] },
  progress_flood: { content: [{ type: "text", text: "done" }] },
};

serveRawTools("raw", tools, {
  onCall: (name, notify) => {
    if (name !== "progress_flood") return;
    for (let i = 0; i < 2000; i++) notify("notifications/progress", { progressToken: i, progress: i });
  },
  result: (name) => results[name],
});
