// Counts what kill-at-log-event.mjs counts, without killing: the events in the workspace's intent
// directory argv[3] once file argv[4] (relative to workspace argv[2]) is a new inode (the change's
// first rename). Prints "watching" once ready; on SIGTERM (the change ended by itself) prints
// "counted <n>" and exits. One-group-kill-revert learns from it how many kill points its change
// has, so that every round of its loop kills at one that exists.
import { statSync, watch, writeSync } from "node:fs";
import path from "node:path";
import { pidFromStdin, replacedSince } from "./kill-support.mjs";

const [workspace, intents, file] = process.argv.slice(2);
const target = path.join(workspace, file);
const first = statSync(target).ino;
// Read as the killer reads it (the test tells every watcher the pid); not used here.
pidFromStdin();
let renamed = false;
let events = 0;
process.on("SIGTERM", () => {
  // Synchronous: the line is out before the exit.
  writeSync(1, `counted ${events}\n`);
  process.exit(0);
});
watch(intents, () => {
  if (!renamed) {
    if (!replacedSince(target, first)) return;
    renamed = true;
  }
  events++;
});
watch(path.dirname(target), () => {
  if (!renamed && replacedSince(target, first)) renamed = true;
});
process.stdout.write("watching\n");
