// Red team round 40: kills a changing process (its pid read as the first line on stdin) with
// SIGKILL the moment the workspace's intent log (directory argv[2]) first says `committed`: its
// temporary files are flushed, its commit point passed, its renames not (or barely) begun.
// Prints "watching" once ready, then "killed at-commit" ("gone": it had ended; "never": no commit in 60 s).
import { readdirSync, readFileSync, watch } from "node:fs";
import path from "node:path";
import { giveUpAfter, killAndExit, pidFromStdin } from "../tools/support/kill-support.mjs";
import "../tools/support/stop-on-terminate.mjs";

const [intents] = process.argv.slice(2);
const changing = pidFromStdin();
giveUpAfter(60_000);

/** True when a log in the intent directory says `committed` (its rewrite, `.next`, is not yet the commit). */
function committed() {
  for (const name of readdirSync(intents).filter((entry) => entry.endsWith(".json"))) {
    try {
      if (JSON.parse(readFileSync(path.join(intents, name), "utf8")).state === "committed") return true;
    } catch {}
  }
  return false;
}

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
