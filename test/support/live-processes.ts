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

/**
 * A random six-digit mark for this test run's processes (appended to sleep durations:
 * `sleep 2.<mark>`), so that `liveWith` counts only them.
 */
export function runMark(): string {
  return String(100_000 + Math.floor(Math.random() * 900_000));
}

/** Samples `liveWith(marker)` every 10 ms until stopped; `stop` gives the most it saw. */
export function sampleMost(marker: string): { stop(): number } {
  let most = 0;
  let running = true;
  const loop = async () => {
    while (running) {
      most = Math.max(most, liveWith(marker));
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  };
  void loop();
  return {
    stop: () => {
      running = false;
      return most;
    },
  };
}
