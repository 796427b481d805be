// A writer killed with SIGKILL (by itself, at once) inside a five-file apply_patch whose last look,
// after the commit point, finds c.txt changed: a watcher on the workspace's intent directory
// (inotify) appends a line to c.txt as soon as the log says `committed`, and then, depending on
// argv[3]:
//   "committed": kills the process once the commit is being taken back (its new record is being
//     written) while the log still says `committed`;
//   "withdrawn": kills it once the log says `prepared` again (taken back), before its temporary
//     files are removed or while they are;
//   "removing": kills it once the log says `prepared` and a temporary file is already gone.
// Before the kill it prints what the log said ("committed" or "prepared") and how many temporary
// files were left. When no kill came, it prints "finished" and the call's result. argv[2]: the
// workspace (a.txt..e.txt, each starting "head 0"), used by no process before; argv[4]: its intent
// directory (the parent computes it, so that this child imports only public entries: the build's
// when the parent chose it, test/support/child-entry.ts).
import { appendFileSync, readdirSync, readFileSync, watch, writeSync } from "node:fs";
import path from "node:path";
import { loadEntry } from "../../support/load-entry.mjs";

const [workspace, mode, intents] = process.argv.slice(2);
const core = await loadEntry("index");
const tools = await loadEntry("tools/index");
const names = ["a", "b", "c", "d", "e"].map((name) => `${name}.txt`);
const run = core.createRegistry({ tools: tools.createFileTools() }).createRun({
  profile: "full",
  permissions: { sandbox: "workspace", workspace },
});
// A first change makes the workspace's intent directory, which the watcher then watches.
const seeded = await run.call("write", { path: "seed.txt", content: "seed\n" });
if (!seeded.ok) throw new Error(JSON.stringify(seeded.error));

/** The state the workspace's one log says (`undefined`: none, or being written), and whether a new record is being written. */
function logState() {
  let state;
  let replacing = false;
  for (const name of readdirSync(intents)) {
    if (name.endsWith(".next")) replacing = true;
    if (!name.endsWith(".json")) continue;
    try {
      state = JSON.parse(readFileSync(path.join(intents, name), "utf8")).state;
    } catch {
      // being written
    }
  }
  return { state, replacing };
}
const temporaries = () => readdirSync(workspace).filter((name) => name.startsWith(".atc-")).length;

let appended = false;
const onEvent = () => {
  const { state, replacing } = logState();
  if (!appended) {
    if (state !== "committed") return;
    appended = true;
    appendFileSync(path.join(workspace, "c.txt"), "appended during the commit\n");
    return;
  }
  const left = temporaries();
  const now =
    mode === "committed"
      ? state === "committed" && replacing
      : mode === "withdrawn"
        ? state === "prepared"
        : state === "prepared" && left < names.length;
  if (!now) return;
  writeSync(1, `${JSON.stringify({ killed: state, temporaries: left })}\n`);
  process.kill(process.pid, "SIGKILL");
};
watch(intents, onEvent);
watch(workspace, onEvent);

const patch = `*** Begin Patch\n${names.map((name) => `*** Update File: ${name}\n@@\n-head 0\n+head 1\n`).join("")}*** End Patch\n`;
const result = await run.call("apply_patch", { patch });
writeSync(1, `${JSON.stringify({ finished: result.ok, appended })}\n`);
process.exit(0);
