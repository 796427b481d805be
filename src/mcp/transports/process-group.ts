import { readdirSync, readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";

const POLL_MS = 25;
// SIGKILL cannot be refused; this only waits for the kernel to finish.
const KILL_WAIT_MS = 1000;

/**
 * Whether any process of the group `pgid` is still running. Zombies do not count: a helper whose
 * parent (the server) died is reparented to init, which may reap it late; it is dead already.
 */
export function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
  } catch (error) {
    // EPERM: a member exists but is not ours to signal (it changed its user); it is alive.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
  return runningMembers(pgid) !== 0;
}

/** Members of the group that are not zombies, from /proc; -1 when that cannot be told. */
function runningMembers(pgid: number): number {
  if (process.platform !== "linux") return -1;
  let seen = 0;
  let running = 0;
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return -1;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, "utf8");
    } catch {
      continue;
    }
    // "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses, so cut at the last ")".
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (Number(fields[2]) !== pgid) continue;
    seen++;
    if (fields[0] !== "Z") running++;
  }
  // None seen although kill() found the group: another pid namespace; trust kill().
  return seen === 0 ? -1 : running;
}

/** Sends `signal` to every process of the group; a group that is gone is not an error. */
export function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // ESRCH: nobody left. EPERM: nothing more we can do.
  }
}

/**
 * Ends a whole process group: SIGTERM, then SIGKILL for what is still there after `graceMs`.
 * Resolves when the group is empty, or at most a second after the SIGKILL.
 */
export async function killGroup(pgid: number, graceMs: number): Promise<void> {
  if (!groupAlive(pgid)) return;
  signalGroup(pgid, "SIGTERM");
  if (await emptyWithin(pgid, graceMs)) return;
  signalGroup(pgid, "SIGKILL");
  await emptyWithin(pgid, KILL_WAIT_MS);
}

// Timers stay referenced: a host awaiting close() must not exit before the group is gone.
async function emptyWithin(pgid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (!groupAlive(pgid)) return true;
    await sleep(POLL_MS);
  }
  return !groupAlive(pgid);
}

// Groups still running when the host exits: a synchronous SIGKILL is all `exit` allows, and it
// keeps servers' helpers from outliving a host that never closed its registry.
const liveGroups = new Set<number>();
let exitHookInstalled = false;

/** Remembers a group to kill if the host process exits first. */
export function trackGroup(pgid: number): () => void {
  liveGroups.add(pgid);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once("exit", () => {
      for (const each of liveGroups) signalGroup(each, "SIGKILL");
    });
  }
  return () => liveGroups.delete(pgid);
}
