// One apply_patch of argv[2].files files (half updated, half added, in argv[2].dirs directories)
// from src, under the open-file limit argv[2].limit (set once src is loaded); argv[2].extra: more patch lines, put last;
// argv[2].hold: descriptors the process holds open before the call (a host using most of its limit);
// argv[2].before: patch lines put first (in the first group of directories);
// argv[2].appendOnCommit: a file to which "EXTERNAL" is appended (a writer that takes no lock) the
// moment the workspace's intent log first says `committed` (seen by inotify, during the commit).
// argv[2].stepClock: the file tools' pacing counts steps, not time (see below).
// argv[2].intents: the workspace's intent directory (given with appendOnCommit; the parent computes it,
// so that this child imports only public entries: the build's when the parent chose it).
// Prints the call's result as JSON (with `appended` when appendOnCommit is given).
import { appendFileSync, openSync, readdirSync, readFileSync, watch } from "node:fs";
import path from "node:path";

import { loadEntry } from "../../support/load-entry.mjs";
import { lowerOpenFileLimit } from "./lower-open-file-limit.mjs";

const {
  workspace,
  files,
  dirs,
  limit,
  extra = [],
  hold = 0,
  before = [],
  appendOnCommit,
  stepClock,
  intents,
} = JSON.parse(process.argv[2]);
const core = await loadEntry("index");
const tools = await loadEntry("tools/index");
lowerOpenFileLimit(limit);
const run = core.createRegistry({ tools: tools.createFileTools() }).createRun({
  profile: "full",
  permissions: { sandbox: "workspace", workspace },
});
const lines = ["*** Begin Patch", ...before];
for (let i = 0; i < files; i++) {
  const file = `d${i % dirs}/f${i}.txt`;
  if (i % 2 === 0) lines.push(`*** Update File: ${file}`, `-old ${i}`, `+new ${i}`);
  else lines.push(`*** Add File: ${file}`, `+new ${i}`);
}
lines.push(...extra, "*** End Patch");
let appended;
if (appendOnCommit !== undefined) {
  // A first change makes the workspace's intent directory, to be watched.
  const seeded = await run.call("write", { path: "seed.txt", content: "seed\n" });
  if (!seeded.ok) throw new Error(JSON.stringify(seeded.error));
  appended = false;
  const watcher = watch(intents, () => {
    if (appended) return;
    for (const name of readdirSync(intents).filter((entry) => entry.endsWith(".json"))) {
      let state;
      try {
        state = JSON.parse(readFileSync(path.join(intents, name), "utf8")).state;
      } catch {
        continue;
      }
      if (state !== "committed") continue;
      appended = true;
      appendFileSync(path.join(workspace, appendOnCommit), "EXTERNAL\n");
      watcher.close();
      return;
    }
  });
}
for (let i = 0; i < hold; i++) openSync("/dev/null", "r");
if (stepClock) {
  // The file tools pace their synchronous loops by `performance.now` (sync-slices.ts): a slice
  // yields after 8 ms, and steps averaging over 1 ms send the rest through the thread pool. On a
  // loaded machine a preempted slice holds a few files, or the thread pool takes over, so how
  // many temporary files wait for their flush at once depends on the load. This clock moves
  // 0.05 ms per reading: every slice is 160 steps, never slow, on any machine.
  const start = performance.now();
  let readings = 0;
  performance.now = () => start + 0.05 * ++readings;
}
const result = await run.call("apply_patch", { patch: lines.join("\n") });
const said = result.ok ? { ok: true } : { ok: false, error: result.error };
process.stdout.write(`${JSON.stringify(appended === undefined ? said : { ...said, appended })}\n`);
