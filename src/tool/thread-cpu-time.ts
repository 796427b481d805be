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
