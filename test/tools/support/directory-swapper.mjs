// Swaps two directories of the workspace argv[2] (argv[3] and argv[4], through argv[5]) every 0-30 ms
// until killed: a writer that takes no lock replacing a directory under a change.
import { renameSync } from "node:fs";
import path from "node:path";

const workspace = process.argv[2];
const [one, other, spare] = process.argv.slice(3).map((name) => path.join(workspace, name));
const pause = new Int32Array(new SharedArrayBuffer(4));
for (;;) {
  try {
    renameSync(one, spare);
    renameSync(other, one);
    renameSync(spare, other);
  } catch {
    // a step failed (a rename lost to nothing here, as nothing else renames): try again
  }
  Atomics.wait(pause, 0, 0, Math.random() * 30);
}
