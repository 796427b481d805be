// Red team round 40: one apply_patch in a process of its own, started when told. argv[2]:
// { workspace, dirs }. Makes a first change (the workspace's intent directory then exists, to be
// watched), prints "ready", waits for a line on stdin, applies a patch updating d<i>/f.txt
// from "old <i>" to "new <i>" for every i < dirs, and prints its result as one JSON line.
import { createInterface } from "node:readline";
import { loadEntry } from "../support/load-entry.mjs";

const { workspace, dirs } = JSON.parse(process.argv[2]);
const core = await loadEntry("index");
const tools = await loadEntry("tools/index");
const run = core.createRegistry({ tools: tools.createFileTools() }).createRun({
  profile: "full",
  permissions: { sandbox: "workspace", workspace },
});
const seeded = await run.call("write", { path: "seed.txt", content: "seed\n" });
if (!seeded.ok) throw new Error(JSON.stringify(seeded.error));
const lines = ["*** Begin Patch"];
for (let i = 0; i < dirs; i++) lines.push(`*** Update File: d${i}/f.txt`, `-old ${i}`, `+new ${i}`);
lines.push("*** End Patch");
process.stdout.write("ready\n");
await new Promise((resolve) => createInterface({ input: process.stdin }).once("line", resolve));
const result = await run.call("apply_patch", { patch: lines.join("\n") });
process.stdout.write(`${JSON.stringify({ result: { ok: result.ok, output: result.output, error: result.error } })}\n`);
process.exit(0);
