// Red team round 40: kills a changing process (its pid read as the first line on stdin) with
// SIGKILL the moment the workspace's intent log (directory argv[2]) first says `committed`: its
// temporary files are flushed, its commit point passed, its renames not (or barely) begun.
// Prints "watching" once ready, then "killed at-commit" ("gone": it had ended; "never": no commit in 60 s).
import { watch } from "node:fs";
import { giveUpAfter, intentLogCommitted, killAndExit, pidFromStdin } from "../tools/support/kill-support.mjs";
import "../tools/support/stop-on-terminate.mjs";

const [intents] = process.argv.slice(2);
const changing = pidFromStdin();
giveUpAfter(60_000);

const committed = () => intentLogCommitted(intents);

watch(intents, () => {
  if (changing.pid === undefined) return;
  // Stopped at every step on its log and looked at while stopped: a fast change went from
  // committed to removed between two looks.
  try {
    process.kill(changing.pid, "SIGSTOP");
  } catch {
    process.stdout.write("gone\n");
    process.exit(0);
  }
  if (committed()) killAndExit(changing.pid, "at-commit");
  process.kill(changing.pid, "SIGCONT");
});
process.stdout.write("watching\n");
