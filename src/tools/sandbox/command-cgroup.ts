import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import {
  type CgroupLayout,
  type ControllerHome,
  ensureParent,
  removeGroup,
  removeIfEmpty,
  resetCgroupLayoutForTests,
} from "./cgroup-layout.js";
import type { RequestedLimits, ResourceLimitKind } from "./resource-limits.js";

/**
 * One command's cgroup: made before the command starts (the launcher joins it before it execs
 * bwrap), read for the limit it ran into, emptied and removed after the command ended; and the
 * reaping of groups left by hosts that died.
 */
let sequence = 0;
const reaped = new Set<string>();

/**
 * One command's cgroup: a directory per hierarchy it uses (one for v2, one per controller on v1),
 * made before the command starts and removed after it ended.
 */
export class CommandCgroup {
  /** The `cgroup.procs` files the launcher writes its pid to, one per hierarchy. */
  readonly procsFiles: readonly string[];
  private readonly groups: readonly { readonly directory: string; readonly home: ControllerHome }[];
  private removed = false;

  private constructor(groups: readonly { readonly directory: string; readonly home: ControllerHome }[]) {
    this.groups = groups;
    this.procsFiles = [...new Set(groups.map((group) => path.join(group.directory, "cgroup.procs")))];
  }

  /**
   * Makes the groups for one command with `limits` set. Undoes what it made when a step fails.
   * @throws the file system error of the step that failed.
   */
  static create(layout: CgroupLayout, limits: RequestedLimits): CommandCgroup | undefined {
    const name = `${process.pid}-${++sequence}-${randomBytes(3).toString("hex")}`;
    const made: { directory: string; home: ControllerHome }[] = [];
    try {
      for (const home of layout.homes) {
        const value = home.controller === "pids" ? limits.maxProcesses : limits.maxMemoryBytes;
        if (value === undefined) continue;
        // On v2 both controllers share one directory, made once; each controller is delegated
        // to the parent first, or the directory would lack its files.
        const shared = made.find((group) => group.home.version === 2 && home.version === 2);
        if (shared !== undefined) ensureParent(home);
        const directory = shared?.directory ?? makeGroup(home, name);
        made.push({ directory, home });
        setLimit(directory, home, value);
      }
    } catch (error) {
      new CommandCgroup(made).removeNow();
      throw error;
    }
    return made.length === 0 ? undefined : new CommandCgroup(made);
  }

  /** Signals every process in the groups once (host pids); how many it signalled. */
  killAll(): number {
    let signalled = 0;
    for (const group of this.groups) {
      if (group.home.version === 2 && existsSync(path.join(group.directory, "cgroup.kill"))) {
        try {
          writeFileSync(path.join(group.directory, "cgroup.kill"), "1");
        } catch {
          // Gone already.
        }
      }
    }
    for (const pid of this.members()) {
      try {
        process.kill(pid, "SIGKILL");
        signalled++;
      } catch {
        // Already gone.
      }
    }
    return signalled;
  }

  /** The limit the command ran into, if any (memory first: an OOM kill decides the outcome). */
  limitReached(): ResourceLimitKind | undefined {
    let processes = false;
    for (const group of this.groups) {
      if (group.home.controller === "memory") {
        const file = group.home.version === 2 ? "memory.events" : "memory.oom_control";
        if (counter(path.join(group.directory, file), "oom_kill") > 0) return "memory";
      } else if (counter(path.join(group.directory, "pids.events"), "max") > 0) processes = true;
    }
    return processes ? "processes" : undefined;
  }

  /**
   * Ends what is left in the groups and removes them: kills until empty (a process can fork while
   * it is being read), then removes the directories and the parent when no other command uses it.
   */
  async release(): Promise<void> {
    if (this.removed) return;
    const deadline = Date.now() + RELEASE_DEADLINE_MS;
    while (this.members().length > 0 && Date.now() < deadline) {
      this.killAll();
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    while (!this.removeNow() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
  }

  /** Removes the groups now; false when one is still busy. */
  private removeNow(): boolean {
    let all = true;
    for (const { directory } of this.groups) {
      if (!removeGroup(directory)) all = false;
      else removeIfEmpty(path.dirname(directory));
    }
    this.removed = all;
    return all;
  }

  private members(): number[] {
    const pids = new Set<number>();
    for (const file of this.procsFiles) {
      let text = "";
      try {
        text = readFileSync(file, "utf8");
      } catch {
        continue;
      }
      for (const line of text.split("\n")) if (/^\d+$/.test(line)) pids.add(Number(line));
    }
    return [...pids];
  }
}

/** How long `release` keeps killing and retrying before it gives up on a group. */
const RELEASE_DEADLINE_MS = 5_000;

function makeGroup(home: ControllerHome, name: string): string {
  for (let attempt = 0; ; attempt++) {
    const parent = ensureParent(home);
    reapStale(parent);
    const directory = path.join(parent, name);
    try {
      mkdirSync(directory);
      return directory;
    } catch (error) {
      // Another host removed the (then empty) parent between the two steps: make it again.
      if (attempt < 3 && (error as NodeJS.ErrnoException).code === "ENOENT") continue;
      throw error;
    }
  }
}

function setLimit(directory: string, home: ControllerHome, value: number): void {
  const text = String(value);
  if (home.controller === "pids") {
    writeFileSync(path.join(directory, "pids.max"), text);
    return;
  }
  if (home.version === 2) {
    writeFileSync(path.join(directory, "memory.max"), text);
    // No swapping past the limit, and an OOM ends the whole command rather than one random process.
    writeOptional(path.join(directory, "memory.swap.max"), "0");
    writeOptional(path.join(directory, "memory.oom.group"), "1");
    return;
  }
  writeFileSync(path.join(directory, "memory.limit_in_bytes"), text);
  // Memory plus swap, when the kernel accounts swap: the same bound, so swap is no way around it.
  writeOptional(path.join(directory, "memory.memsw.limit_in_bytes"), text);
}

function writeOptional(file: string, text: string): void {
  try {
    writeFileSync(file, text);
  } catch {
    // Not offered by this kernel (no swap accounting, an older kernel).
  }
}

/** Reads `name N` from a flat keyed cgroup file; 0 when absent. */
function counter(file: string, name: string): number {
  let text = "";
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return 0;
  }
  const match = new RegExp(`^${name} (\\d+)$`, "m").exec(text);
  return match === null ? 0 : Number(match[1]);
}

/**
 * Removes, once per process and parent, the empty groups of hosts that died without removing
 * them (killed with -9): a group is named `<pid>-...` for the host that made it.
 */
function reapStale(parent: string): void {
  if (reaped.has(parent)) return;
  reaped.add(parent);
  let entries: string[];
  try {
    entries = readdirSync(parent, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
  } catch {
    return;
  }
  for (const entry of entries) {
    const owner = Number(/^(\d+)-/.exec(entry)?.[1]);
    if (!Number.isSafeInteger(owner) || owner === process.pid || isAlive(owner)) continue;
    // rmdir refuses a group that still has processes: only empty ones go.
    removeGroup(path.join(parent, entry));
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** For tests: forget what was found and reaped, so the next use looks again. */
export function resetCgroupStateForTests(): void {
  resetCgroupLayoutForTests();
  reaped.clear();
}
