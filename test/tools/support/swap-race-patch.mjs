// One apply_patch (unified diff) under the open-file limit argv[2].limit (set once src is loaded): d{i}/f.txt "old i" -> "new i" for
// i < dirs - 1, and d{dirs-1}/f.txt deleted (its content must be "old"). With `recover`, one `ls`
// instead (the workspace's recovery runs first). argv[2]: JSON { workspace, dirs, limit?, recover? }.
// Prints the call's result as JSON.
import { loadEntry } from "../../support/load-entry.mjs";
import { lowerOpenFileLimit } from "./lower-open-file-limit.mjs";

const { workspace, dirs, limit, recover = false } = JSON.parse(process.argv[2]);
const core = await loadEntry("index");
const tools = await loadEntry("tools/index");
if (limit !== undefined) lowerOpenFileLimit(limit);
const run = core.createRegistry({ tools: tools.createFileTools() }).createRun({
  profile: "full",
  permissions: { sandbox: "workspace", workspace },
});
if (recover) {
  const listed = await run.call("ls", { path: "." });
  process.stdout.write(`${JSON.stringify(listed.ok ? { ok: true } : { ok: false, error: listed.error })}\n`);
  process.exit(0);
}
const lines = [];
for (let i = 0; i < dirs - 1; i++) lines.push(`--- a/d${i}/f.txt`, `+++ b/d${i}/f.txt`, "@@ -1 +1 @@", `-old ${i}`, `+new ${i}`);
const last = dirs - 1;
lines.push(`diff --git a/d${last}/f.txt b/d${last}/f.txt`, "deleted file mode 100644");
lines.push(`--- a/d${last}/f.txt`, "+++ /dev/null", "@@ -1 +0,0 @@", "-old", "");
const result = await run.call("apply_patch", { patch: lines.join("\n") });
process.stdout.write(`${JSON.stringify(result.ok ? { ok: true } : { ok: false, error: result.error })}\n`);
