import { readdirSync, readFileSync, readlinkSync, statSync } from "node:fs";

/** How often a running ripgrep is looked at; a blocked one is stopped within about this long. */
export const RIPGREP_WATCH_MS = 100;

/**
 * What a thread blocked on a named pipe waits in (`/proc/<pid>/task/<tid>/wchan`): opening one
 * without a writer (`wait_for_partner`, inlined into `fifo_open` on some builds; `pipe_wait` before
 * Linux 5.6) or reading one without data (`pipe_read`, `anon_pipe_read` from Linux 6.14).
 */
const NAMED_PIPE_WAITS: ReadonlySet<string> = new Set([
  "wait_for_partner",
  "fifo_open",
  "pipe_wait",
  "pipe_read",
  "anon_pipe_read",
]);

/**
 * Watches a running ripgrep for what grep's look at the ignore files (`findUnsafeIgnoreFile`)
 * keeps it from meeting, for a file swapped in after that look (or in a directory the look did not
 * enter): every {@link RIPGREP_WATCH_MS}, the processes below `pid` (ripgrep itself, or bwrap and
 * what it started) are read from `/proc`, and `onBlocked` is called (once) when one of their
 * threads waits on a named pipe, or one holds a named pipe or a device other than `/dev/null`
 * open. ripgrep has no business with either: its output pipes are anonymous, its stdin is
 * `/dev/null`, it searches regular files only and opens nothing else by name but ignore files.
 * So an ignore file swapped for a named pipe after the look blocks grep for about
 * {@link RIPGREP_WATCH_MS} (plus ripgrep's stop), not until `searchTimeoutMs`, however the swap
 * is timed and even when a writer holds the pipe open; one swapped for a link to `/dev/zero` is
 * read for about as long (hundreds of MB at most, where it grew without bound). Checked on the
 * processes, not on the files, so no race with the file system is left. Linux only (elsewhere the
 * look and `searchTimeoutMs` stand); each look costs a few `/proc` reads (none for a search that
 * ends within {@link RIPGREP_WATCH_MS}, most of them). Only the processes running `executable`
 * (ripgrep) are judged: bwrap, setting the sandbox up, holds `/newroot/dev/full`, `urandom`,
 * `tty`... open for a moment, which a loaded machine stretches past a look (CI at load 35-40 had
 * grep fall back to JavaScript with "it held a device open"). Returns the function that stops
 * watching.
 */
export function watchForBlockedRipgrep(
  pid: number | undefined,
  executable: string,
  onBlocked: (why: string) => void,
  intervalMs = RIPGREP_WATCH_MS,
): () => void {
  if (pid === undefined || process.platform !== "linux") return () => {};
  const ripgrep = fileIdentity(executable);
  const timer = setInterval(() => {
    const why = blockedOnNamedPipe(pid, ripgrep);
    if (why === undefined) return;
    clearInterval(timer);
    onBlocked(why);
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}

/** A file's device and inode: what `/proc/<pid>/exe` of a process running it stats to. */
export interface FileIdentity {
  readonly dev: number;
  readonly ino: number;
}

/** `file`'s identity (links followed), or undefined when it cannot be read. */
export function fileIdentity(file: string): FileIdentity | undefined {
  try {
    const { dev, ino } = statSync(file);
    return { dev, ino };
  } catch {
    return undefined;
  }
}

/**
 * Why a process at or below `pid` is blocked on a named pipe or reads a device, if one is. With
 * `only`, processes running another executable are passed over (see {@link watchForBlockedRipgrep});
 * one whose executable cannot be told is judged.
 */
export function blockedOnNamedPipe(pid: number, only?: FileIdentity): string | undefined {
  for (const each of processesFrom(pid)) {
    if (only !== undefined && !runs(each, only)) continue;
    for (const thread of listOrEmpty(`/proc/${each}/task`)) {
      const wait = readOrUndefined(`/proc/${each}/task/${thread}/wchan`);
      if (wait !== undefined && NAMED_PIPE_WAITS.has(wait.trim())) return "it waited on a named pipe";
    }
    for (const descriptor of listOrEmpty(`/proc/${each}/fd`)) {
      // 0-2 are what grep gave it: /dev/null and its output pipes.
      if (descriptor.length === 1 && descriptor <= "2") continue;
      const held = heldKind(`/proc/${each}/fd/${descriptor}`);
      if (held !== undefined) return `it held ${held} open`;
    }
  }
  return undefined;
}

/** Whether process `pid` runs the executable `identity` (true when that cannot be read). */
function runs(pid: number, identity: FileIdentity): boolean {
  const running = fileIdentity(`/proc/${pid}/exe`);
  return running === undefined || (running.dev === identity.dev && running.ino === identity.ino);
}

/**
 * `pid` and every process below it, through each one's main thread's `children`: bwrap is single
 * threaded and ripgrep starts no process, so no other thread has children of its own.
 */
function processesFrom(pid: number): number[] {
  const found: number[] = [];
  const pending = [pid];
  for (let next = pending.pop(); next !== undefined && found.length < MAX_PROCESSES; next = pending.pop()) {
    found.push(next);
    const children = readOrUndefined(`/proc/${next}/task/${next}/children`) ?? "";
    for (const child of children.split(" ")) if (child.trim() !== "") pending.push(Number(child));
  }
  return found;
}

/** More than ripgrep and bwrap ever make: a bound on the look, not a limit on them. */
const MAX_PROCESSES = 16;

/**
 * "a named pipe" or "a device" for a descriptor ripgrep has no business holding: a named pipe (its
 * own output pipes are anonymous, `pipe:[...]`), or a character or block device other than
 * `/dev/null` (its stdin; told by its device number, as a path read from another mount namespace
 * need not say `/dev/null`).
 */
function heldKind(descriptor: string): string | undefined {
  try {
    const stats = statSync(descriptor, { throwIfNoEntry: false });
    if (stats === undefined) return undefined;
    if (stats.isFIFO()) return readlinkSync(descriptor).startsWith("pipe:") ? undefined : "a named pipe";
    if (stats.isCharacterDevice() && stats.rdev === nullDevice()) return undefined;
    if (stats.isCharacterDevice() || stats.isBlockDevice()) return "a device";
  } catch {
    // Gone meanwhile (closed, the process ended): nothing held.
  }
  return undefined;
}

let nullDeviceNumber: number | undefined;

/** `/dev/null`'s device number (1,3 on Linux), read once. */
function nullDevice(): number {
  nullDeviceNumber ??= statSync("/dev/null").rdev;
  return nullDeviceNumber;
}

function listOrEmpty(directory: string): string[] {
  try {
    return readdirSync(directory);
  } catch {
    return [];
  }
}

function readOrUndefined(file: string): string | undefined {
  try {
    return readFileSync(file, "latin1");
  } catch {
    return undefined;
  }
}
