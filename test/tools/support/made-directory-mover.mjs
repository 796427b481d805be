// Swaps a directory under a change that makes a new directory in it: once a temporary file of a
// change (`.atc-*`) shows up in `<workspace>/a/new` (argv[2] the workspace), renames `a` to `away`
// and puts at its path a user's `a` with an empty `a/new` and `a/keep.txt`, then prints "moved";
// prints "watching" once it has looked the first time, "never" after 60 s without one. Told by
// inotify (a/new made in a, then the temporary file in a/new: temporary-file-watch.mjs), not by
// reading a/new in a loop, which kept a core busy beside the change it waited for.
import { existsSync, mkdirSync, renameSync, watch, writeFileSync } from "node:fs";
import path from "node:path";
import "./stop-on-terminate.mjs";
import { temporaryFileIn } from "./temporary-file-watch.mjs";

const [workspace] = process.argv.slice(2);
const deadline = Date.now() + 60_000;
const made = path.join(workspace, "a", "new");

/** Resolves true once `made` exists (or already does when the watch starts), false at the deadline. */
function madeDirectory(onWatching) {
  return new Promise((resolve) => {
    const watcher = watch(path.dirname(made), (_event, name) => {
      if (name === path.basename(made) && existsSync(made)) finish(true);
    });
    const timer = setTimeout(() => finish(false), Math.max(0, deadline - Date.now()));
    function finish(found) {
      clearTimeout(timer);
      watcher.close();
      resolve(found);
    }
    onWatching();
    if (existsSync(made)) finish(true);
  });
}

/** The temporary file once a/new is made; false when neither came by the deadline (or a/new went before its watch). */
async function temporaryFileInMade() {
  if (!(await madeDirectory(() => process.stdout.write("watching\n")))) return false;
  try {
    return await temporaryFileIn(made, Math.max(0, deadline - Date.now()));
  } catch {
    // a/new removed before its watch was set: the change failed without a temporary file there.
    return false;
  }
}

if (await temporaryFileInMade()) {
  renameSync(path.join(workspace, "a"), path.join(workspace, "away"));
  mkdirSync(path.join(workspace, "a"));
  mkdirSync(path.join(workspace, "a", "new"));
  writeFileSync(path.join(workspace, "a", "keep.txt"), "user\n");
  process.stdout.write("moved\n");
  process.exit(0);
}
process.stdout.write("never\n");
process.exit(0);
