// A writer that takes no lock (a shell's `>>`): once a temporary file of a change (`.atc-*`) shows
// up in directory argv[3] of workspace argv[2], appends "EXTERNAL" to file argv[4] and prints
// "appended"; prints "never" after 60 s without one.
import { appendFileSync, readdirSync } from "node:fs";
import path from "node:path";

const [workspace, watched, target] = process.argv.slice(2);
const deadline = Date.now() + 60_000;
while (Date.now() < deadline) {
  if (readdirSync(path.join(workspace, watched)).some((name) => name.startsWith(".atc-"))) {
    appendFileSync(path.join(workspace, target), "EXTERNAL\n");
    process.stdout.write("appended\n");
    process.exit(0);
  }
}
process.stdout.write("never\n");
