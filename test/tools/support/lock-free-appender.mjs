// A writer that takes no lock (a shell's `>>`): once a temporary file of a change (`.atc-*`) shows
// up in directory argv[3] of workspace argv[2] (told by inotify: temporary-file-watch.mjs), appends
// "EXTERNAL" to file argv[4] and prints "appended"; prints "never" after 60 s without one.
import { appendFileSync } from "node:fs";
import path from "node:path";
import { temporaryFileIn } from "./temporary-file-watch.mjs";

const [workspace, watched, target] = process.argv.slice(2);
if (await temporaryFileIn(path.join(workspace, watched), 60_000)) {
  appendFileSync(path.join(workspace, target), "EXTERNAL\n");
  process.stdout.write("appended\n");
  process.exit(0);
}
process.stdout.write("never\n");
