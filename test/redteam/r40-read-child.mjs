// Red team round 40: one `read` in a new process (its first file call recovers the workspace argv[2]).
import { loadEntry } from "../support/load-entry.mjs";

const core = await loadEntry("index");
const tools = await loadEntry("tools/index");
const run = core.createRegistry({ tools: tools.createFileTools() }).createRun({
  profile: "full",
  permissions: { sandbox: "workspace", workspace: process.argv[2] },
});
const result = await run.call("read", { path: "seed.txt" });
process.stdout.write(`${JSON.stringify({ ok: result.ok })}\n`);
