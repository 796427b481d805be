// One apply_patch (unified diff) under the open-file limit argv[2].limit (set once src is loaded): d{i}/f.txt "old i" -> "new i" for
// i < dirs - 1, and d{dirs-1}/f.txt deleted (its content must be "old"). With `recover`, one `ls`
// instead (the workspace's recovery runs first). argv[2]: JSON { workspace, dirs, limit?, recover?, serve? }.
// Prints the call's result as JSON. With `serve`, one such apply_patch (in a new registry and run)
// per line read on stdin, each result a line, until stdin ends: a test repeating the change on a
// workspace seeded again each time pays for one process start (loading the package, the limit
// set), not one per attempt, where what it checks is the change and not a new process.
import { createInterface } from "node:readline";
import { loadEntry } from "../../support/load-entry.mjs";
import { lowerOpenFileLimit } from "./lower-open-file-limit.mjs";

const { workspace, dirs, limit, recover = false, serve = false } = JSON.parse(process.argv[2]);
const core = await loadEntry("index");
const tools = await loadEntry("tools/index");
if (limit !== undefined) lowerOpenFileLimit(limit);
const newRun = () =>
  core.createRegistry({ tools: tools.createFileTools() }).createRun({
    profile: "full",
    permissions: { sandbox: "workspace", workspace },
  });
const run = newRun();
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
/** The call on `on`, as the line printed. */
async function applyOn(on) {
  const result = await on.call("apply_patch", { patch: lines.join("\n") });
  return `${JSON.stringify(result.ok ? { ok: true } : { ok: false, error: result.error })}\n`;
}
if (serve) {
  for await (const _line of createInterface({ input: process.stdin })) process.stdout.write(await applyOn(newRun()));
} else process.stdout.write(await applyOn(run));
