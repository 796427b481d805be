// Fills the state directory's file system (a small tmpfs, mounted by the test) to the brim the
// moment a change's intent log first says `committed`: a full disk that the change's commit still
// found room on and the steps after it do not. The changing process (its pid read as the first
// line on stdin) is stopped (SIGSTOP) while argv[3] (a file on that tmpfs, outside the intent
// directory argv[2], so that no intent-directory event comes of it) is written until ENOSPC, then
// continued (SIGCONT). Prints "watching" once ready, then "filled <bytes>" ("gone": the process
// had ended; "never": no commit in 60 s). Real processes, real signals: no hook in the product.
import { closeSync, openSync, watch, writeSync } from "node:fs";
import { giveUpAfter, intentLogCommitted, pidFromStdin } from "./kill-support.mjs";
import "./stop-on-terminate.mjs";

const [intents, filler] = process.argv.slice(2);
const changing = pidFromStdin();
giveUpAfter(60_000);

const committed = () => intentLogCommitted(intents);

watch(intents, () => {
  if (changing.pid === undefined || !committed()) return;
  try {
    process.kill(changing.pid, "SIGSTOP");
  } catch {
    process.stdout.write("gone\n");
    process.exit(0);
  }
  const fd = openSync(filler, "a");
  const chunk = Buffer.alloc(4096, 1);
  let written = 0;
  try {
    for (;;) written += writeSync(fd, chunk);
  } catch {}
  closeSync(fd);
  process.kill(changing.pid, "SIGCONT");
  process.stdout.write(`filled ${written}\n`);
  process.exit(0);
});
process.stdout.write("watching\n");
