import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { CGROUP_PARENT_NAME, cgroupLayout } from "../../src/tools/sandbox/cgroup-layout.js";

/**
 * What a test sees, from the host, of the per-command cgroups this process's sandboxed commands
 * run in (named `<pid>-...` under the library's parent group, in every hierarchy in use): a test
 * can wait on what happens in them (a fork refused) instead of guessing how long it takes.
 */

/** The library's parent groups (one per hierarchy in use). */
export function parents(): string[] {
  return [...new Set(cgroupLayout().homes.map((home) => path.join(home.hostGroup, CGROUP_PARENT_NAME)))];
}

/** The command groups this process has now, in every hierarchy. */
export function ownGroups(): string[] {
  const groups: string[] = [];
  for (const parent of parents()) {
    if (!existsSync(parent)) continue;
    for (const entry of readdirSync(parent)) if (entry.startsWith(`${process.pid}-`)) groups.push(path.join(parent, entry));
  }
  return groups;
}

/** The pids in this process's command groups now. */
export function members(): number[] {
  const pids = new Set<number>();
  for (const group of ownGroups()) {
    for (const line of readFileSync(path.join(group, "cgroup.procs"), "utf8").split("\n"))
      if (line !== "") pids.add(Number(line));
  }
  return [...pids];
}

/** The current task count of a command's pids group (v1 or v2 name alike); 0 when there is none. */
export function tasksNow(): number {
  for (const group of ownGroups()) {
    const file = path.join(group, "pids.current");
    if (existsSync(file)) return Number(readFileSync(file, "utf8"));
  }
  return 0;
}

/** How many forks a command's pids group has refused so far (`max` in pids.events, v1 or v2 alike). */
export function forksRefused(): number {
  for (const group of ownGroups()) {
    const file = path.join(group, "pids.events");
    if (!existsSync(file)) continue;
    try {
      return Number(/^max (\d+)$/m.exec(readFileSync(file, "utf8"))?.[1] ?? 0);
    } catch {
      return 0; // The group went between the two reads.
    }
  }
  return 0;
}
