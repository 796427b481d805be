// Swaps a directory once a change's renames have begun: watches directory argv[3] of workspace
// argv[2] (inotify, fs.watch) until its file argv[4] is a new inode (the change's first group's
// rename landed), then renames directory argv[5] to argv[6] and puts at its path a copy made
// before the change began (two renames, so the swap lands within the renames of the later
// groups), and prints "moved". Prints "watching" once the copy is made, the watch is in place and
// the file's inode taken (a test starts its change after that line); "never" after 60 s.
import { renameSync, statSync, watch } from "node:fs";
import path from "node:path";
import { copyBeside, giveUpAfter, replacedSince } from "./kill-support.mjs";
import "./stop-on-terminate.mjs";

const [workspace, watched, file, victim, away] = process.argv.slice(2);
const from = path.join(workspace, victim);
const copy = copyBeside(from);
const target = path.join(workspace, watched, file);
const first = statSync(target).ino;
const timer = giveUpAfter(60_000);
const watcher = watch(path.join(workspace, watched), () => {
  if (!replacedSince(target, first)) return;
  renameSync(from, path.join(workspace, away));
  renameSync(copy, from);
  watcher.close();
  clearTimeout(timer);
  process.stdout.write("moved\n");
  process.exit(0);
});
process.stdout.write("watching\n");
