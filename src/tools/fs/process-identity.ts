import { readFileSync, readlinkSync } from "node:fs";

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

/**
 * This process's pid namespace (the inode of `/proc/self/ns/pid`), or `undefined` without `/proc`.
 * A pid names a process only inside its namespace: a process in a container sharing `/tmp` has
 * a pid that means nothing (or another process) here.
 */
export const OWN_PID_NAMESPACE: string | undefined = (() => {
  try {
    return /^pid:\[(\d+)\]$/.exec(readlinkSync("/proc/self/ns/pid"))?.[1];
  } catch {
    return undefined;
  }
})();

/**
 * This process as `pid:start:namespace` (`pid:start` where the namespace cannot be read). Readers
 * that know only `pid:start` (versions before stop 53) split on ":" and ignore the third field.
 */
export const OWN_PROCESS = `${process.pid}:${processStartTime(process.pid) ?? "?"}${OWN_PID_NAMESPACE === undefined ? "" : `:${OWN_PID_NAMESPACE}`}`;

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

/**
 * True only when the holder named `owner` (`pid:start[:namespace]`) is surely gone, for a sweep
 * that removes state nobody asked about (see `lock-sweep.ts`), stricter than {@link isProcessAlive}:
 * - `pid:start:namespace` of this pid namespace: dead when that pid runs no more, or runs another
 *   process (another start time: the pid was reused);
 * - of another namespace (a container sharing the directory): never (its pid means nothing here);
 * - `pid:start` (written before namespaces were recorded) or `pid:?` (no start time): the
 *   namespace cannot be told, so only once `ageMs` (how long ago the state was last written) is
 *   at least `unjudgedAgeMs` and the pid is dead here: no lock is held, no change in flight, for
 *   that long. Except where this process cannot read its own namespace either (no `/proc`:
 *   macOS, whose pids are global, where every holder writes `pid:?`): there it is judged by pid
 *   as it always was, or a killed process's locks would stay for `unjudgedAgeMs`.
 *
 * The one judge of a holder: the sweep (`lock-sweep.ts`) and a waiter that finds a lock held
 * (`cross-process-lock.ts`, `judgeLockFile`) both ask it, with the same `unjudgedAgeMs`.
 */
export function isSurelyDead(owner: string, ageMs: number, unjudgedAgeMs: number): boolean {
  const [pidText, start, namespace, extra] = owner.split(":");
  if (extra !== undefined || !/^\d+$/.test(pidText ?? "")) return false;
  if (namespace !== undefined) {
    if (OWN_PID_NAMESPACE === undefined || namespace !== OWN_PID_NAMESPACE || !/^\d+$/.test(start ?? "")) return false;
    return !isProcessAlive(owner);
  }
  if (OWN_PID_NAMESPACE === undefined) return !isProcessAlive(owner);
  return ageMs >= unjudgedAgeMs && !isProcessAlive(owner);
}

/**
 * State whose holder's namespace cannot be told (see {@link isSurelyDead}) is judged only this
 * old (ms): a lock is held for one call's write, a change is in flight for one call; an hour is
 * neither, so what is that old and names a pid dead here is a crash's leftover.
 */
export const UNJUDGED_AGE_MS = 60 * 60_000;
