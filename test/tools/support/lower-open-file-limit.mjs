// Lowers this process's open-file limit (soft and hard, as `ulimit -n` does) once the modules under
// test are loaded, so that a child tests the code under the limit and not Node's module loader:
// with `ulimit -n` set before node started, the limit bounded the loader too, which reads the files
// of a module graph (src/index.ts: hundreds) concurrently, so how many it holds open at once depends
// on how its threads are scheduled. At `ulimit -n` 100 the loader itself failed with EMFILE on a
// loaded machine (1 load in 6 with a build running beside it, 4 in 6 at 64), before the call ran.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";

/** The soft limit on open files now, as /proc/self/limits says it. */
function softLimit() {
  const line = readFileSync("/proc/self/limits", "utf8")
    .split("\n")
    .find((entry) => entry.startsWith("Max open files"));
  return line?.split(/\s{2,}/)[1];
}

/**
 * Sets RLIMIT_NOFILE of this process to `limit` (util-linux `prlimit` on its own pid: Node has no
 * setrlimit). Call it before the first call of the code under test: the file tools read the limit
 * once per process, at their first batch.
 */
export function lowerOpenFileLimit(limit) {
  execFileSync("prlimit", ["--pid", String(process.pid), `--nofile=${limit}:${limit}`], { stdio: "inherit" });
  const now = softLimit();
  if (now !== String(limit)) throw new Error(`the open-file limit is ${now}, not ${limit}`);
}
