import { closeSync, openSync, readdirSync, readFileSync, readSync } from "node:fs";

/** One buffer for every /proc read (grown when a command line is longer): no allocation per process. */
let buffer = Buffer.alloc(64 * 1024);

/**
 * Whether the file holds `needle`, read whole through one descriptor into {@link buffer}: a sample
 * reads every process's command line, and `readFileSync(..., "latin1")` (an fstat, reads, a
 * string made of each) cost twice the CPU, which a sampler spends continuously beside the code
 * under test.
 */
function holds(file: string, needle: Buffer): boolean {
  const descriptor = openSync(file, "r");
  try {
    let length = 0;
    for (;;) {
      if (length === buffer.length) {
        const bigger = Buffer.alloc(buffer.length * 2);
        buffer.copy(bigger);
        buffer = bigger;
      }
      const read = readSync(descriptor, buffer, length, buffer.length - length, null);
      if (read === 0) break;
      length += read;
    }
    return buffer.subarray(0, length).includes(needle);
  } finally {
    closeSync(descriptor);
  }
}

/**
 * Live (not zombie) host processes whose command line contains `marker`, counted through /proc.
 * Give the processes a marker unique to the test run (e.g. a random suffix on a `sleep`
 * duration), so two runs side by side never count each other's.
 */
export function liveWith(marker: string): number {
  return livePidsWith(marker).length;
}

/** The pids of live (not zombie) host processes whose command line contains `marker`, from /proc. */
export function livePidsWith(marker: string): number[] {
  const needle = Buffer.from(marker, "latin1");
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (!holds(`/proc/${entry}/cmdline`, needle)) continue;
      if (/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${entry}/stat`, "latin1"))) continue;
      found.push(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}

let marksMade = 0;

/**
 * A mark for this test run's processes (appended to sleep durations: `sleep 2.<mark>`), so that
 * `liveWith` counts only them: 16 digits, this process's id (7, zero-padded: no two live
 * processes share one, so a concurrent copy of the suite never has the same mark), a count of the
 * marks this process made (3: two files in one shared worker differ) and 6 random digits (a
 * process that died leaving marked orphans, whose id was reused). Always 16 digits, so that no
 * mark's needle is a prefix of another's.
 */
export function runMark(): string {
  const made = marksMade++ % 1000;
  const random = Math.floor(Math.random() * 1_000_000);
  return `${String(process.pid).padStart(7, "0")}${String(made).padStart(3, "0")}${String(random).padStart(6, "0")}`;
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
