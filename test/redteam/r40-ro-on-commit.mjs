// Red team round 40: makes a whole file system read-only (`mount -o remount,ro`, the superblock:
// every mount of it, and every descriptor already open on it) the moment a change's intent log
// first says `committed`: the change's temporary files are flushed and its commit point passed,
// but neither its renames nor any restore file beside its targets can be made. The changing
// process (its pid read as the first line on stdin) is stopped (SIGSTOP) while the remount is
// tried (it fails with EBUSY while a file there is open for writing; the process is let run 5 ms
// after each second of tries), then continued. argv[2]: the workspace's intent directory; argv[3]:
// the mount point. Prints "watching" once ready, then "read-only" ("busy": not landed in 20 s;
// "gone": the process had ended; "never": no commit in 60 s).
import { spawnSync } from "node:child_process";
import { watch } from "node:fs";
import { giveUpAfter, intentLogCommitted, pidFromStdin } from "../tools/support/kill-support.mjs";
import "../tools/support/stop-on-terminate.mjs";

const [intents, mountPoint] = process.argv.slice(2);
const changing = pidFromStdin();
giveUpAfter(60_000);

const committed = () => intentLogCommitted(intents, /\.json(\.next)?$/);

let done = false;
watch(intents, () => {
  if (done || changing.pid === undefined) return;
  // Stopped at every step on its log, so that the one making it `committed` is not run past
  // before it is looked at (a fast change went from committed to removed between two looks).
  try {
    process.kill(changing.pid, "SIGSTOP");
  } catch {
    process.stdout.write("gone\n");
    process.exit(0);
  }
  if (!committed()) {
    process.kill(changing.pid, "SIGCONT");
    return;
  }
  done = true;
  // A file still open for writing there (a temporary file whose close the stopped process has
  // not finished) keeps the remount busy: after a second of tries the process runs 5 ms more.
  const until = Date.now() + 20_000;
  let landed = false;
  while (!landed && Date.now() < until) {
    const round = Date.now() + 1_000;
    while (!landed && Date.now() < round) landed = spawnSync("mount", ["-o", "remount,ro", mountPoint]).status === 0;
    if (landed) break;
    process.kill(changing.pid, "SIGCONT");
    const resume = Date.now() + 5;
    while (Date.now() < resume) {}
    process.kill(changing.pid, "SIGSTOP");
  }
  process.kill(changing.pid, "SIGCONT");
  process.stdout.write(landed ? "read-only\n" : "busy\n");
  process.exit(0);
});
process.stdout.write("watching\n");
