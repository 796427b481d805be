// Red team round 40: a process whose open-file limit another process lowers (`prlimit --pid`)
// after the file tools read it (they read it once per process, at the first batch). argv[2]:
// { workspace, dirs, limit, mode: "before-call" | "during-call" | "none" }. "before-call": the limit is lowered
// between a first write and the apply_patch; "during-call": a background prlimit lowers it the
// moment the patch's first temporary file appears (inotify on the first directory).
// "none": the limit is left alone (the control). Prints the apply_patch result as one JSON line.
import { execFileSync, spawn } from "node:child_process";
import { watch } from "node:fs";
import path from "node:path";
import { loadEntry } from "../support/load-entry.mjs";

const { workspace, dirs, limit, mode } = JSON.parse(process.argv[2]);
const core = await loadEntry("index");
const tools = await loadEntry("tools/index");
const run = core.createRegistry({ tools: tools.createFileTools() }).createRun({
  profile: "full",
  permissions: { sandbox: "workspace", workspace },
});
// The first call reads the limit (high) and recovers the workspace.
const first = await run.call("write", { path: "seed.txt", content: "seed\n" });
if (!first.ok) throw new Error(JSON.stringify(first.error));
const lines = ["*** Begin Patch"];
for (let i = 0; i < dirs; i++) lines.push(`*** Update File: d${i}/f.txt`, `-old ${i}`, `+new ${i}`);
lines.push("*** End Patch");
let lowered = false;
if (mode === "before-call") {
  execFileSync("prlimit", ["--pid", String(process.pid), `--nofile=${limit}:${limit}`]);
  lowered = true;
} else if (mode === "during-call") {
  const watcher = watch(path.join(workspace, "d0"), (_event, name) => {
    if (lowered || !String(name).includes(".atc-")) return;
    lowered = true;
    watcher.close();
    // Another process lowers it: this one does not wait for it.
    spawn("prlimit", ["--pid", String(process.pid), `--nofile=${limit}:${limit}`], { stdio: "ignore" });
  });
}
const result = await run.call("apply_patch", { patch: lines.join("\n") });
process.stdout.write(`${JSON.stringify({ lowered, result: { ok: result.ok, output: result.output, error: result.error } })}\n`);
