// A thread's CPU time (user + system) on Linux, read from /proc, for time limits that must count
// a worker's work and not the host's load: on 2 shared cores at load 24-35 a thread that wants to
// run waits for a CPU most of the time, and a wall-clock limit then refused harmless schemas.
import { nodeBuiltin } from "./node-builtin.js";

interface FsBuiltin {
  readFileSync(path: string, encoding: "utf8"): string;
  readlinkSync(path: string): string;
}

/**
 * Clock ticks per second of /proc's utime and stime: Linux's USER_HZ, 100 on every architecture
 * Node runs on (the kernel converts its own HZ to it for userspace).
 */
const USER_HZ = 100;

/**
 * The /proc stat file of the calling thread as another thread of the process can read it
 * (`/proc/<pid>/task/<tid>/stat`), or `undefined` where there is no such file (not Linux, /proc
 * not mounted). `/proc/thread-self` names the reader's thread, so the thread itself resolves it.
 */
export function ownThreadStatPath(): string | undefined {
  const fs = nodeBuiltin<FsBuiltin>("node:fs");
  if (fs === undefined) return undefined;
  try {
    const self = fs.readlinkSync("/proc/thread-self");
    const path = `/proc/${self}/stat`;
    return readThreadCpuMs(path) === undefined ? undefined : path;
  } catch {
    return undefined;
  }
}

/**
 * The CPU time, in ms (10 ms steps), the thread whose stat file is `statPath` has run, or
 * `undefined` when the file cannot be read (the thread ended) or parsed.
 */
export function readThreadCpuMs(statPath: string): number | undefined {
  let text: string;
  try {
    text = nodeBuiltin<FsBuiltin>("node:fs")?.readFileSync(statPath, "utf8") ?? "";
  } catch {
    return undefined;
  }
  // Field 2, the thread's name, is in parentheses and may hold spaces or ')': the fields after
  // the last ')' start with field 3 (state); utime and stime are fields 14 and 15.
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  if (!Number.isFinite(utime) || !Number.isFinite(stime)) return undefined;
  return ((utime + stime) * 1000) / USER_HZ;
}

/**
 * A time limit that counts a thread's CPU time (the machine's load must not use its budget: on 2
 * cores at load 24 a harmless schema was refused with a wall-clock limit, its thread waiting for
 * a CPU), with this many times the limit in wall time ending it whatever its CPU time: the bound
 * on a thread that cannot get a CPU at all, or waits without running.
 */
export const CPU_LIMIT_WALL_FACTOR = 10;

/** Least wait before the CPU time is read again (/proc counts it in 10 ms steps). */
const MIN_RECHECK_MS = 10;

/** Where a thread's CPU-time limit started, and what it is. */
export interface CpuLimitStart {
  /** The limit, in ms of the thread's CPU time. */
  readonly limitMs: number;
  /** The wall-time bound, in multiples of the limit. */
  readonly wallFactor: number;
  /** `performance.now()` when the limit started. */
  readonly startWallMs: number;
  /** The thread's CPU time then; `undefined` when it cannot be read (the limit is wall time). */
  readonly startCpuMs: number | undefined;
}

/**
 * For a limit whose time has passed in wall time (a timer of `limitMs` fired): 0 when it is over
 * (the thread ran `limitMs` of CPU since the start, or its CPU time cannot be read, or the wall
 * bound passed), else how long to wait before looking again (the CPU time left could have run by
 * then, the wall bound is not passed).
 */
export function cpuLimitRecheckMs(limit: CpuLimitStart, nowCpuMs: number | undefined): number {
  const wallLeftMs = limit.limitMs * limit.wallFactor - (performance.now() - limit.startWallMs);
  const cpuLeftMs = limit.startCpuMs === undefined || nowCpuMs === undefined ? 0 : limit.limitMs - (nowCpuMs - limit.startCpuMs);
  if (cpuLeftMs <= 0 || wallLeftMs <= 0) return 0;
  return Math.max(MIN_RECHECK_MS, Math.min(cpuLeftMs, wallLeftMs));
}
