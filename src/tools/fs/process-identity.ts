import { readFileSync } from "node:fs";

/**
 * The start time of a process (clock ticks since boot, `/proc/<pid>/stat` field 22), or
 * `undefined` where `/proc` is missing. With the pid it names one process for good: a pid reused
 * after a crash has another start time, so a lock or intent left by the dead one is seen as stale.
 */
export function processStartTime(pid: number): string | undefined {
  return procStat(pid)?.[19];
}

/** Fields 3 and on of `/proc/<pid>/stat` (field 3, the state, first), or `undefined` without `/proc`. */
function procStat(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name (field 2) may hold spaces and parentheses: count fields after the last ")".
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  } catch {
    return undefined;
  }
}

/** This process as `pid:start`. */
export const OWN_PROCESS = `${process.pid}:${processStartTime(process.pid) ?? "?"}`;

/**
 * True while the process named `pid:start` runs (a reused pid with another start time is dead).
 * A zombie is dead: killed, but not reaped yet by its parent (an init that reaps late, a parent
 * that was killed with it), it still answers signal 0 and keeps its start time.
 */
export function isProcessAlive(owner: string): boolean {
  const [pidText, start] = owner.split(":");
  const pid = Number(pidText);
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EPERM") return false;
  }
  const stat = procStat(pid);
  if (stat === undefined) return true;
  if (stat[0] === "Z" || stat[0] === "X" || stat[0] === "x") return false;
  return start === undefined || start === "?" || stat[19] === start;
}
