/**
 * CPU time of this process and of the children it has reaped, for tests that bound what a call
 * costs the host when part of the work may run in a child (git, a shell): `process.cpuUsage`
 * counts every thread of this process but no child. Linux's `/proc/self/stat` gives the children's
 * user and system time once they are waited for (`cutime`, `cstime`, in clock ticks of 10 ms);
 * elsewhere only this process is counted.
 */
import { readFileSync } from "node:fs";

/** Milliseconds of CPU (user + system): this process's own, and its reaped children's. */
export interface TreeCpu {
  readonly selfMs: number;
  readonly childrenMs: number;
}

/** Clock ticks per second of `/proc/<pid>/stat` (USER_HZ: 100 on every Linux Node runs on). */
const TICKS_PER_SECOND = 100;

function childrenMs(): number {
  try {
    const stat = readFileSync("/proc/self/stat", "latin1");
    // Fields after the command's closing parenthesis: state is field 3, cutime and cstime 16 and 17.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return ((Number(fields[13]) + Number(fields[14])) * 1000) / TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

/** This process's and its reaped children's CPU time now. */
export function treeCpu(): TreeCpu {
  const used = process.cpuUsage();
  return { selfMs: (used.user + used.system) / 1000, childrenMs: childrenMs() };
}

/** The CPU time spent since `since` by this process and the children it reaped meanwhile, in ms. */
export function treeCpuSince(since: TreeCpu): TreeCpu & { readonly totalMs: number } {
  const now = treeCpu();
  const selfMs = now.selfMs - since.selfMs;
  const children = now.childrenMs - since.childrenMs;
  return { selfMs, childrenMs: children, totalMs: selfMs + children };
}
