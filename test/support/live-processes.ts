import { readdirSync, readFileSync } from "node:fs";

/**
 * Live (not zombie) host processes whose command line contains `marker`, counted through /proc.
 * Give the processes a marker unique to the test run (e.g. a random suffix on a `sleep`
 * duration), so two runs side by side never count each other's.
 */
export function liveWith(marker: string): number {
  let count = 0;
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (!readFileSync(`/proc/${entry}/cmdline`, "latin1").includes(marker)) continue;
      if (/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${entry}/stat`, "latin1"))) continue;
      count++;
    } catch {
      // Gone meanwhile.
    }
  }
  return count;
}
