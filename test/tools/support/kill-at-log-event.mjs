// Kills a changing process (its pid read as the first line on stdin) with SIGKILL at the argv[5]-th
// event in the workspace's intent directory argv[3] after its renames have begun: file argv[4]
// (relative to workspace argv[2]) watched until it is a new inode (the change's first rename),
// then the intent directory's events counted. Each step on the log (a record rewritten: a `.next`
// file made, written, renamed over the log; the log removed) is a few events, so counting 1, 2, 3,
// ... kills the process at each of its log steps after the first rename in turn (the kill lands
// a little later than the event: the loop in the test covers the steps between).
// With argv[6] (a directory of the workspace): argv[5] is ignored, and the kill comes at the first
// event in that directory once the intent log says `reverting` (a step of the revert there).
// Prints "watching" once ready, then "killed <n>" (or "gone": the process had ended; "never": no
// rename in 60 s). Real processes, real signals: no hook in the product.
import { readdirSync, readFileSync, statSync, watch } from "node:fs";
import path from "node:path";
import { giveUpAfter, killAndExit, pidFromStdin, replacedSince } from "./kill-support.mjs";
import "./stop-on-terminate.mjs";

const [workspace, intents, file, at, inDirectory] = process.argv.slice(2);
const target = path.join(workspace, file);
const first = statSync(target).ino;
const wanted = Number(at);
const changing = pidFromStdin();
let renamed = false;
let events = 0;
// Exiting with the kill ends the process, and with it this timer.
giveUpAfter(60_000);
let reverting = false;
if (inDirectory !== undefined) {
  watch(intents, () => {
    for (const name of readdirSync(intents).filter((entry) => entry.endsWith(".json"))) {
      try {
        if (JSON.parse(readFileSync(path.join(intents, name), "utf8")).state === "reverting") reverting = true;
      } catch {}
    }
  });
  watch(path.join(workspace, inDirectory), (_event, name) => {
    if (reverting) killAndExit(changing.pid, `at ${name} in ${inDirectory}`);
  });
}
// Watched from the start, so no event after the first rename is missed; events before it are ignored.
watch(intents, () => {
  if (inDirectory !== undefined) return;
  if (!renamed) {
    if (!replacedSince(target, first)) return;
    renamed = true;
  }
  if (++events < wanted) return;
  killAndExit(changing.pid, events);
});
watch(path.dirname(target), () => {
  if (!renamed && replacedSince(target, first)) renamed = true;
});
process.stdout.write("watching\n");
