// Moves a directory away under a change: once a temporary file of a change (`.atc-*`) shows up in
// directory argv[3] of workspace argv[2], renames directory argv[4] to argv[5] and puts a new one
// at its path holding copies of its files (temporary files left out), then prints "moved"; prints
// "never" after 60 s without one. With argv[6] "--no-replacement": nothing is put at its path.
import { copyFileSync, mkdirSync, readdirSync, renameSync } from "node:fs";
import path from "node:path";

const [workspace, watched, victim, away, option] = process.argv.slice(2);
const deadline = Date.now() + 60_000;
while (Date.now() < deadline) {
  if (readdirSync(path.join(workspace, watched)).some((name) => name.startsWith(".atc-"))) {
    const [from, to] = [path.join(workspace, victim), path.join(workspace, away)];
    renameSync(from, to);
    if (option !== "--no-replacement") {
      mkdirSync(from);
      for (const name of readdirSync(to)) if (!name.startsWith(".atc-")) copyFileSync(path.join(to, name), path.join(from, name));
    }
    process.stdout.write("moved\n");
    process.exit(0);
  }
}
process.stdout.write("never\n");
