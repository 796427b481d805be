// Swaps a directory once a grouped change's renames have begun (as swap-after-first-rename.mjs:
// directory argv[4] of workspace argv[2] watched until its file argv[5] is a new inode, then
// directory argv[6] renamed to argv[7] and a copy made before the change put at its path), then
// kills the changing process (its pid read as the first line on stdin) with SIGKILL: with
// argv[8] "log", at the first event in the workspace's intent directory argv[3] after the swap
// (the change's first step on its log once the failed reopen is met: its withdrawal, or whatever
// the product writes there first); with a number, that many milliseconds after the swap.
// With argv[8] "append", no kill: "EXTERNAL" is appended to the watched file right after the swap
// (a writer that takes no lock, changing a first-group file after its rename), then "appended".
// Prints "watching" once ready, then "killed <ms after swap>" (or "gone": the process had ended;
// "never": no swap in 60 s). Real processes, real signals: no hook in the product.
import { appendFileSync, renameSync, statSync, watch } from "node:fs";
import path from "node:path";
import { copyBeside, giveUpAfter, killAndExit, pidFromStdin, replacedSince } from "./kill-support.mjs";
import "./stop-on-terminate.mjs";

const [workspace, intents, watched, file, victim, away, when] = process.argv.slice(2);
const from = path.join(workspace, victim);
const copy = copyBeside(from);
const target = path.join(workspace, watched, file);
const first = statSync(target).ino;
const changing = pidFromStdin();
let swappedAt;
const kill = () => killAndExit(changing.pid, (performance.now() - swappedAt).toFixed(2));
const timer = giveUpAfter(60_000);
// Watched from the start, so no event after the swap is missed; events before it are ignored.
const logWatcher = watch(intents, () => {
  if (swappedAt !== undefined && when === "log") kill();
});
const watcher = watch(path.join(workspace, watched), () => {
  if (swappedAt !== undefined || !replacedSince(target, first)) return;
  renameSync(from, path.join(workspace, away));
  renameSync(copy, from);
  swappedAt = performance.now();
  watcher.close();
  clearTimeout(timer);
  if (when === "append") {
    logWatcher.close();
    appendFileSync(target, "EXTERNAL\n");
    process.stdout.write("appended\n");
    process.exit(0);
  }
  if (when !== "log") {
    logWatcher.close();
    setTimeout(kill, Number(when));
  }
});
process.stdout.write("watching\n");
