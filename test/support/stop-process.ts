import type { ChildProcess } from "node:child_process";
import { livePidsWith } from "./live-processes.js";

/**
 * Signals a child (SIGKILL unless told) and resolves once it has exited. `kill()` only queues the
 * signal: a process in the middle of a system call finishes that call first, and on a loaded
 * machine it may not run again for a while, so a flipper's last `rename` or a writer's last
 * `open(O_CREAT)` can land after `kill()` returned, while the test already removes the directory
 * (rm: ENOTEMPTY, the CI failure of stop 51) or looks at what the process left. For a child that
 * starts processes of its own, use startBackgroundLoop (test/support/background-loop.ts), which
 * stops the whole process group.
 */
export async function stopProcess(child: ChildProcess, signal: NodeJS.Signals = "SIGKILL"): Promise<void> {
  // exitCode or signalCode is set in the same turn as the "exit" event: either it is set now or
  // the event is still to come.
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill(signal);
  await exited;
}

/**
 * SIGKILLs every process `find` names, again until it names none, and resolves then. For host
 * processes that are not this process's children (a sandboxed command's escapee, a launcher's
 * orphan): there is no exit event to wait on, and until they have exited they may still hold or
 * write files under a directory the test is about to remove. `find` must not name zombies (their
 * command line is empty, which a match on it skips by itself). Throws if any still runs after 10 s.
 */
export async function killUntilGone(find: () => readonly number[]): Promise<void> {
  const until = Date.now() + 10_000;
  for (;;) {
    const left = find();
    if (left.length === 0) return;
    if (Date.now() > until) throw new Error(`still running 10 s after SIGKILL: ${left.join(", ")}`);
    for (const pid of left) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // Gone meanwhile.
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The pids of live (not zombie) processes other than this one whose command line contains `marker`. */
export function pidsWith(marker: string): number[] {
  return livePidsWith(marker).filter((pid) => pid !== process.pid);
}
