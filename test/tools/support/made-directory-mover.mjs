// Swaps a directory under a change that makes a new directory in it: once a temporary file of a
// change (`.atc-*`) shows up in `<workspace>/a/new` (argv[2] the workspace), renames `a` to `away`
// and puts at its path a user's `a` with an empty `a/new` and `a/keep.txt`, then prints "moved";
// prints "watching" once it has looked the first time, "never" after 60 s without one.
import { mkdirSync, readdirSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";

const [workspace] = process.argv.slice(2);
const deadline = Date.now() + 60_000;
process.stdout.write("watching\n");
while (Date.now() < deadline) {
  let names = [];
  try {
    names = readdirSync(path.join(workspace, "a", "new"));
  } catch {
    // Not made yet.
  }
  if (names.some((name) => name.startsWith(".atc-"))) {
    renameSync(path.join(workspace, "a"), path.join(workspace, "away"));
    mkdirSync(path.join(workspace, "a"));
    mkdirSync(path.join(workspace, "a", "new"));
    writeFileSync(path.join(workspace, "a", "keep.txt"), "user\n");
    process.stdout.write("moved\n");
    process.exit(0);
  }
}
process.stdout.write("never\n");
