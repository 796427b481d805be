// Kills a changing process (its pid read as the first line on stdin) with SIGKILL the moment the
// workspace's intent log in directory argv[2] first says `reverting` (a change taking itself back
// after its rename pass failed part way): the kill lands while the files are being put back, or
// just before. Prints "watching" once ready, then "killed reverting" ("gone": the process had
// ended; "never": no such log in 60 s). Real processes, real signals: no hook in the product.
import { readdirSync, readFileSync, watch } from "node:fs";
import path from "node:path";
import { giveUpAfter, killAndExit, pidFromStdin } from "./kill-support.mjs";
import "./stop-on-terminate.mjs";

const [intents] = process.argv.slice(2);
const changing = pidFromStdin();
giveUpAfter(60_000);
watch(intents, () => {
  if (changing.pid === undefined) return;
  for (const name of readdirSync(intents).filter((entry) => entry.endsWith(".json"))) {
    try {
      if (JSON.parse(readFileSync(path.join(intents, name), "utf8")).state === "reverting")
        killAndExit(changing.pid, "reverting");
    } catch {}
  }
});
process.stdout.write("watching\n");
