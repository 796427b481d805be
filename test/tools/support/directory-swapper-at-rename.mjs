// Swaps two directories of the workspace argv[2] (argv[4] and argv[5], through argv[6]) once, as
// soon as a file named argv[7] is renamed or written into directory argv[3] (told by inotify):
// with argv[3] a first group's directory of a change made in groups, that is the change's first
// rename, after its last looks and before it opens its last group again to rename and delete
// there (see applyInGroups in src/tools/fs/file-transaction.ts). Prints "watching" once its watch
// is in place (whileMoving, while-moving.ts, starts the change after it), then "moved" once it
// swapped; "never" after 60 s without such a rename.
import { renameSync, watch } from "node:fs";
import path from "node:path";
import "./stop-on-terminate.mjs";

const [workspace, watched, ...rest] = process.argv.slice(2);
const [one, other, spare] = rest.slice(0, 3).map((name) => path.join(workspace, name));
const target = rest[3];
const watcher = watch(path.join(workspace, watched), (_event, name) => {
  if (name !== target) return;
  watcher.close();
  renameSync(one, spare);
  renameSync(other, one);
  renameSync(spare, other);
  process.stdout.write("moved\n");
  process.exit(0);
});
setTimeout(() => {
  process.stdout.write("never\n");
  process.exit(0);
}, 60_000).unref();
process.stdout.write("watching\n");
