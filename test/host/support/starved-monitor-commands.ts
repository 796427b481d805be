/** What test/host/support/starved-monitor-host.ts runs and reports, shared with its test. */

/** Commands that write and exit at once: a short line, 64 KiB in one printf, 96 KiB then an exit code. */
export const COMMANDS = {
  hi: { command: "echo hi", output: "hi\n", status: "exited with code 0" },
  printf: { command: "printf '%65536s' '' | tr ' ' a", output: "a".repeat(65536), status: "exited with code 0" },
  exit: { command: "head -c 98304 /dev/zero | tr '\\0' b; exit 7", output: "b".repeat(98304), status: "exited with code 7" },
} as const;

/** How the model learns of the end: wait for the exit, wait for a pattern never printed, list until not running. */
export const WAYS = ["wait", "pattern", "list"] as const;

export interface Observation {
  readonly name: keyof typeof COMMANDS;
  readonly way: (typeof WAYS)[number];
  /** Each answer that reported an exit code, with the output read up to and including it. */
  readonly exits: readonly {
    readonly action: string;
    readonly status: string;
    readonly read: number;
    readonly complete: boolean;
  }[];
  /** Output a poll after everything else still found (nothing, when the exit came after the output). */
  readonly late: number;
  /** Calls that failed (their error codes). */
  readonly errors: readonly string[];
}
