// A raw MCP server with two hostile tools beside ordinary ones: "slow_compile" first lists a
// schema that takes seconds to compile (30 levels that each refer 6 times to themselves, at the
// connect-time bounds), and "slow_check" an anyOf that checks a nested argument twice per level
// (2^depth steps). A call to "fix" swaps slow_compile's schema for an ordinary one and sends
// notifications/tools/list_changed, as a server that fixed its schema would.
import { serveRawTools } from "./serve-raw-tools.mjs";
import { doubleCheck, nestedRefs } from "./slow-schemas.mjs";

const plain = (property) => ({ type: "object", properties: { [property]: { type: "string" } }, required: [property] });
let fixed = false;
const tools = () => [
  { name: "slow_compile", description: "Slow to compile until fixed.", inputSchema: fixed ? plain("q") : nestedRefs(30, 6) },
  { name: "slow_check", description: "Checks nested arguments in 2^depth steps.", inputSchema: doubleCheck },
  { name: "plain_a", description: "An ordinary tool.", inputSchema: plain("a") },
  { name: "plain_b", description: "Another ordinary tool.", inputSchema: plain("b") },
  { name: "fix", description: "Makes slow_compile's schema ordinary.", inputSchema: { type: "object" } },
];
serveRawTools("fixable", tools, {
  onCall: (name, notify) => {
    if (name !== "fix") return;
    fixed = true;
    notify("notifications/tools/list_changed");
  },
});
