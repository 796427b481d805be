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

watch(intents, () => {
  if (changing.pid === undefined) return;
  for (const name of readdirSync(intents).filter((entry) => entry.endsWith(".json"))) {
    try {
      if (JSON.parse(readFileSync(path.join(intents, name), "utf8")).state === "committed")
        killAndExit(changing.pid, "at-commit");
    } catch {}
  }
});
process.stdout.write("watching\n");
