import { type ChildProcess, spawn } from "node:child_process";
import { setTimeout as sleep } from "node:timers/promises";
import { groupAlive, signalGroup } from "../../src/mcp/transports/process-group.js";

/** A shell loop run in a process group of its own, so that stopping it stops what it started too. */
export interface BackgroundLoop {
  /** The shell. */
  readonly child: ChildProcess;
  /**
   * SIGKILLs the whole group and resolves once no member runs. Killing only the shell left the
   * command it was running (a `truncate`, a `mkfifo`) alive as an orphan, which then created a
   * file in a directory the test was removing: `rm` failed with ENOTEMPTY (CI, huge-file-host-cost).
   */
  stop(): Promise<void>;
}

/** Runs `script` with `sh -c` as the leader of a new process group. */
export function startBackgroundLoop(script: string, options: { cwd?: string } = {}): BackgroundLoop {
  const child = spawn("sh", ["-c", script], { cwd: options.cwd, stdio: "ignore", detached: true });
  const pgid = child.pid;
  let stopped: Promise<void> | undefined;
  return {
    child,
    stop() {
      stopped ??= (async () => {
        if (pgid === undefined) return;
        signalGroup(pgid, "SIGKILL");
        // SIGKILL cannot be refused; this waits for the kernel to finish each member.
        const until = Date.now() + 60_000;
        while (groupAlive(pgid)) {
          if (Date.now() > until) throw new Error(`process group ${pgid} still runs 60 s after SIGKILL`);
          await sleep(10);
        }
      })();
      return stopped;
    },
  };
}
