import { hash, randomBytes } from "node:crypto";
import { linkSync, lstatSync, mkdirSync, rmdirSync, unlinkSync } from "node:fs";
import { link, readdir, unlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { ToolError } from "agent-tool-catalog";
import { readSmallFileTextOrWhyNot } from "../sandbox/small-file-text.js";
import { startStateSweep } from "./lock-sweep.js";
import { ensurePrivateDirectory } from "./private-state-directory.js";
import { isProcessAlive, isSurelyDead, OWN_PROCESS, UNJUDGED_AGE_MS } from "./process-identity.js";
import { inSyncSlices } from "./sync-slices.js";
import { writeNewFile } from "./write-new-file.js";

/**
 * The process-wide table of in-process file locks. It lives on `globalThis` under a registered
 * symbol, so the ESM and the CJS build of this package, loaded side by side, share one table.
 */
interface LockTable {
  tails: Map<string, Promise<unknown>>;
  /** How many locks of dead holders this process broke (see {@link staleLocksBroken}). */
  staleBreaks?: number;
}
const TABLE_KEY = Symbol.for("agent-tool-catalog.file-locks.v1");
const globalTable = globalThis as typeof globalThis & { [TABLE_KEY]?: LockTable };
const table: LockTable = globalTable[TABLE_KEY] ?? { tails: new Map() };
globalTable[TABLE_KEY] = table;

/**
 * How many locks of dead holders this process has broken so far (ESM and CJS builds count
 * together). A dead holder may have left a committed change in the intent log: whoever breaks its
 * lock must roll that change forward before touching the file, or a later recovery would roll the
 * old change over the newer write (see `recoverWorkspace`).
 */
export function staleLocksBroken(): number {
  return table.staleBreaks ?? 0;
}

/**
 * Takes the in-process lock of `key`: resolves once every earlier holder of `key` in this process
 * has released it. The table holds, per key, a promise that settles when the last holder is done
 * (the shape other builds of this package sharing the table expect).
 */
async function acquireInProcess(key: string): Promise<() => void> {
  const previous = table.tails.get(key) ?? Promise.resolve();
  const release = enterTable(key, previous);
  await previous.catch(() => undefined);
  return release;
}

/**
 * Sets `key`'s tail in the table to a promise settled by the returned release (after `previous`,
 * when `key` was held), which also takes the key out of the table if no later holder came.
 */
function enterTable(key: string, previous?: Promise<unknown>): () => void {
  let settle = () => {};
  const done = new Promise<void>((resolve) => {
    settle = resolve;
  });
  const tail =
    previous === undefined
      ? done
      : previous.then(
          () => done,
          () => done,
        );
  table.tails.set(key, tail);
  return () => {
    settle();
    if (table.tails.get(key) === tail) table.tails.delete(key);
  };
}

/**
 * Takes the in-process locks of `sorted` keys as taking them one by one in that order does. When
 * none of them is held (the usual case), all are entered into the table in one synchronous step:
 * exactly what the one-by-one sequence does when nobody comes in between, without an `await` (and
 * its promises) per key; a 500-file change took 500 turns of the microtask queue here. When one is
 * held, one by one, waiting in order (another build sharing the table may take its keys one at a
 * time, and only the ordered sequence keeps the two from waiting on each other).
 */
async function acquireAllInProcess(sorted: readonly string[]): Promise<(() => void)[]> {
  if (sorted.every((key) => !table.tails.has(key))) return sorted.map((key) => enterTable(key));
  const releases: (() => void)[] = [];
  for (const key of sorted) releases.push(await acquireInProcess(key));
  return releases;
}

const WAIT_LIMIT_MS = 60_000;
const BREAK_LOCK_STALE_MS = 10_000;

/**
 * How long a call waits for a lock another live process holds before it answers `file_locked`:
 * `AGENT_TOOL_CATALOG_LOCK_WAIT_MS` (whole milliseconds, at least 1) when set to such a number,
 * else a minute. Read at each wait, as `AGENT_TOOL_CATALOG_LOCK_DIR` is, so a host (or a test)
 * that expects long-held locks can answer sooner, or wait longer; a value that is not a positive
 * whole number is ignored (the minute), never a wait of zero or for ever.
 */
function lockWaitLimitMs(): number {
  const text = process.env.AGENT_TOOL_CATALOG_LOCK_WAIT_MS;
  const value = text === undefined || !/^\d+$/.test(text.trim()) ? Number.NaN : Number(text.trim());
  return Number.isSafeInteger(value) && value >= 1 ? value : WAIT_LIMIT_MS;
}

/** A wait as the `file_locked` message says it: "a minute", "1.5 seconds", "300 ms". */
function waitText(ms: number): string {
  if (ms === WAIT_LIMIT_MS) return "a minute";
  if (ms < 1000) return `${ms} ms`;
  const seconds = Math.round(ms / 100) / 10;
  return `${seconds} second${seconds === 1 ? "" : "s"}`;
}

/** The directory of lock files, private to this user. Override with `AGENT_TOOL_CATALOG_LOCK_DIR`. */
export function lockDirectory(): string {
  return path.join(lockBase(), process.env.AGENT_TOOL_CATALOG_LOCK_DIR === undefined ? "locks" : "");
}

function lockBase(): string {
  const uid = typeof process.geteuid === "function" ? process.geteuid() : "user";
  return process.env.AGENT_TOOL_CATALOG_LOCK_DIR ?? path.join(tmpdir(), `agent-tool-catalog-${uid}`);
}

/** The lock file of `key` in `directory` (give `lockDirectory()` once for a batch of keys). */
function lockFileOf(key: string, directory = lockDirectory()): string {
  // One-shot (`hash`, no Hash object): a multi-file change names one lock file per file.
  return path.join(directory, `${hash("sha256", key, "hex").slice(0, 40)}.lock`);
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Creates the lock file of `key` (`O_CREAT | O_EXCL`: exactly one creator wins) and returns its
 * path, to be removed by {@link unlinkLocks}; `undefined` when held.
 */
async function tryFileLock(key: string): Promise<string | undefined> {
  const file = lockFileOf(key);
  try {
    // A reader may see it empty for a moment; an empty lock counts as live until it is old (see breakIfStale).
    await createExclusive(file, `${OWN_PROCESS}\n${key}\n`);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return undefined;
    throw error;
  }
  return file;
}

/**
 * Takes the OS-visible lock of `key`: a lock file created with `O_EXCL` holding `pid:start-time`,
 * waiting while another process holds it; returns the lock file's path. A lock whose owner is dead (or whose pid was reused) is
 * stale and is broken under a second, short-lived break lock, so two waiters never both break it.
 */
async function acquireFileLock(key: string): Promise<string> {
  const started = Date.now();
  const limit = lockWaitLimitMs();
  let delay = 1;
  for (;;) {
    const taken = await tryFileLock(key);
    if (taken !== undefined) return taken;
    const look = breakIfStale(lockFileOf(key));
    if (Date.now() - started > limit) {
      if (look === "unreadable") {
        // Not a lock this package wrote (a named pipe, a link, a directory, a huge file): no
        // holder will ever release it, and nothing here can judge it; the user must remove it.
        throw new ToolError(
          "file_locked",
          `This file's lock in the file locks' directory is not a lock file (it cannot be read as one), so it was waited for ${waitText(limit)} and never released. Nothing was written.`,
          { hint: "Ask the user to remove what is in the place of this file's lock in the file locks' directory." },
        );
      }
      throw new ToolError(
        "file_locked",
        `Another process has held the lock on this file for over ${waitText(limit)}. Nothing was written.`,
        {
          hint: "Try again later.",
        },
      );
    }
    await pause(delay);
    delay = Math.min(delay * 2, 20);
  }
}

/** A lock file larger than this is not read (not one this package wrote: it holds an identity and a key). */
export const MAX_LOCK_FILE_BYTES = 1024 * 1024;

/**
 * The text of lock (or owner) file `file`, read through one descriptor opened without following a
 * link and without blocking, a regular file of at most {@link MAX_LOCK_FILE_BYTES} (see
 * `readSmallFileTextOrWhyNot`): `"absent"` when there is none, `"unreadable"` for anything else in its
 * place (a named pipe, whose read blocked the waiter for ever, a link, a directory, a huge file)
 * or a read error.
 */
export function readLockText(file: string): string | "absent" | "unreadable" {
  return readSmallFileTextOrWhyNot(file, MAX_LOCK_FILE_BYTES);
}

/** When a lock file's holder counts as dead (see {@link judgeLockFile}). */
export interface LockJudgement {
  /** A lock younger than this (ms, by mtime) is live whoever holds it (the sweep's rule; 0 for a waiter). */
  readonly minAgeMs: number;
  /** An empty lock (its creator killed between creating and writing it, or writing it now) is dead this old. */
  readonly emptyAfterMs: number;
}

/** What a look at a lock file found: gone, not a lock file, held by a live (or unjudgeable) holder, or dead. */
export type LockLook =
  | { readonly state: "absent" }
  | { readonly state: "unreadable" }
  | { readonly state: "held" }
  | { readonly state: "dead"; readonly holder: string };

/**
 * Looks at lock file `file` and judges its holder: the one judgement of a lock, for a waiter
 * ({@link breakIfStale}) and for the sweep (`lock-sweep.ts`). The holder (its first line,
 * `pid:start[:namespace]`) is dead only when `isSurelyDead` says so, with {@link UNJUDGED_AGE_MS}
 * for a holder whose namespace cannot be told: a holder of another pid namespace (a container
 * sharing `/tmp`) is never judged by its pid, which means nothing here. Read with
 * {@link readLockText}: nothing in a lock's place can block the look.
 */
export function judgeLockFile(file: string, rules: LockJudgement, now = Date.now()): LockLook {
  let age: number;
  try {
    age = now - lstatSync(file).mtimeMs;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ENOENT" ? { state: "absent" } : { state: "unreadable" };
  }
  // The age first: a recent lock (most of a busy directory, for the sweep) costs one lstat, not a read.
  if (age < rules.minAgeMs) return { state: "held" };
  const holder = readLockText(file);
  if (holder === "absent" || holder === "unreadable") return { state: holder };
  const owner = holder.split("\n")[0] ?? "";
  const dead = owner === "" ? age >= rules.emptyAfterMs : isSurelyDead(owner, age, UNJUDGED_AGE_MS);
  return dead ? { state: "dead", holder } : { state: "held" };
}

/**
 * Removes the lock file `file` if it still holds `holder` (a dead holder's content, read by the
 * caller), under its break lock (`<file>.break`, a directory: two breakers never both remove it,
 * and a new holder's lock, made after the removal, is never removed), and counts the break (so
 * this process recovers a workspace again before its next file operation). Synchronous: a few
 * metadata calls, for a waiter and the sweep's slices alike. Returns whether it was removed; a
 * break lock older than {@link BREAK_LOCK_STALE_MS} (left by a crash) is removed for the next
 * try; throws the break lock's creation error (a read-only or full directory) for the caller to
 * stop on, any other failure leaves the lock as it is.
 */
export function breakDeadLockSync(file: string, holder: string): boolean {
  const breaker = `${file}.break`;
  try {
    mkdirSync(breaker);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    // Another process breaking it right now, or a break lock left by a crash: removed once old.
    try {
      if (Date.now() - lstatSync(breaker).mtimeMs > BREAK_LOCK_STALE_MS) rmdirSync(breaker);
    } catch {}
    return false;
  }
  try {
    // Under the break lock: still the same dead holder? Then nobody live can hold it: remove it.
    if (readLockText(file) !== holder) return false;
    // Counted before the unlink: a waiter that wins the lock next must see the count change.
    table.staleBreaks = (table.staleBreaks ?? 0) + 1;
    unlinkSync(file);
    return true;
  } catch {
    return false;
  } finally {
    try {
      rmdirSync(breaker);
    } catch {}
  }
}

/** A waiter's judgement: any age, an empty lock dead once {@link BREAK_LOCK_STALE_MS} old. */
const WAITER_JUDGEMENT: LockJudgement = { minAgeMs: 0, emptyAfterMs: BREAK_LOCK_STALE_MS };

/**
 * A waiter's look at the lock file `file` it could not create: broken when its holder is dead
 * (see {@link judgeLockFile}). Returns what the look found (`"unreadable"`: not a lock file, so
 * the wait ends in a `file_locked` that says so; it is never removed, being nothing this package
 * wrote or can judge).
 */
function breakIfStale(file: string): LockLook["state"] {
  const look = judgeLockFile(file, WAITER_JUDGEMENT);
  if (look.state !== "dead") return look.state;
  try {
    breakDeadLockSync(file, look.holder);
  } catch {
    // The break lock cannot be made (a read-only or full directory): the lock stays, as held.
    return "held";
  }
  return "dead";
}

/**
 * The directory of owner files inside the lock directory `directory` (same file system: a lock is
 * a hard link to one). Owner files have a directory of their own so that reclaiming them lists
 * only them: the lock directory itself gathers a lock file per file ever locked by a process that
 * died holding it (57,400 on a test machine, 4.8 MB of directory, 66 ms of CPU to list).
 */
export function ownerDirectory(directory = lockDirectory()): string {
  return path.join(directory, "owners");
}

/**
 * A new file in the owner directory holding this process's identity, as a lock file does (its
 * name ends in `.owner`, never `.lock`, so no lock is ever mistaken for it). Before the first one
 * of this process, owner files that dead processes left (a `kill -9` between its creation and its
 * removal) are reclaimed.
 */
async function ownerFile(directory: string): Promise<string> {
  const owners = ownerDirectory(directory);
  // Made and checked like the lock directory (once per process): owned by this user, private.
  await ensurePrivateDirectory(directory, owners);
  await reclaimStaleOwnerFiles(directory);
  const file = path.join(owners, `${process.pid}-${randomBytes(6).toString("hex")}.owner`);
  await createExclusive(file, `${OWN_PROCESS}\n`);
  return file;
}

/**
 * Creates `file` (`O_EXCL`, mode 0600) holding `content`. When the write or the close fails after
 * the file was made (a full file system makes the inode, then refuses the bytes), the file is
 * removed: left, an empty lock counts as live for {@link BREAK_LOCK_STALE_MS}, and a full one
 * names this live process, so every later call on the file would wait, and fail, while this
 * process runs.
 */
function createExclusive(file: string, content: string): Promise<void> {
  return writeNewFile(file, content, { flags: "wx", mode: 0o600 });
}

/**
 * A failure of the lock directory's file system as the model's error (it names no host path):
 * nothing was written, and the host must free space or fix the directory (or the call is tried again).
 */
function lockDirectoryError(error: unknown): unknown {
  switch ((error as NodeJS.ErrnoException | undefined)?.code) {
    case "ENOSPC":
    case "EDQUOT":
      return new ToolError(
        "no_space",
        "No space is left for the file locks (the temporary directory is full). Nothing was changed.",
        {
          hint: "Ask the user to free disk space.",
        },
      );
    case "EROFS":
      return new ToolError(
        "read_only_file_system",
        "The file locks' directory is on a read-only file system. Nothing was changed.",
        {
          hint: "Ask the user to make the temporary directory writable.",
        },
      );
    default: {
      // Any other error of the file system (EIO from a failing disk or a network mount): the
      // lock files made were removed, so nothing was changed and a retry may work.
      const code = (error as NodeJS.ErrnoException | undefined)?.code;
      if (typeof code !== "string" || !/^E[A-Z0-9]+$/.test(code)) return error;
      return new ToolError("file_system_error", `The file locks' directory reported an error (${code}). Nothing was changed.`, {
        hint: "Try again; if it fails again, ask the user to check the temporary directory's disk.",
      });
    }
  }
}

/** Per lock directory: when this process last reclaimed its stale owner files. */
const ownerSweeps = new Map<string, number>();
const OWNER_SWEEP_INTERVAL_MS = 10 * 60_000;

/**
 * Removes the `.owner` files of the lock directory's owner directory (see {@link ownerDirectory})
 * whose process is gone (its recorded `pid:start-time` names no live process, or the file is
 * unreadable and its name's pid is dead). The lock files are not listed.
 * An owner file is only ever a source for hard links: a lock linked to it keeps its own name and
 * content, so removing a dead process's owner file never releases a lock. Done once per lock
 * directory and process, and again after {@link OWNER_SWEEP_INTERVAL_MS} (a long-lived process
 * keeps the directory clean of owners killed meanwhile).
 */
export async function reclaimStaleOwnerFiles(directory = lockDirectory()): Promise<number> {
  const last = ownerSweeps.get(directory);
  if (last !== undefined && Date.now() - last < OWNER_SWEEP_INTERVAL_MS) return 0;
  ownerSweeps.set(directory, Date.now());
  const owners = ownerDirectory(directory);
  const names = await readdir(owners).catch(() => [] as string[]);
  let removed = 0;
  for (const name of names) {
    if (!name.endsWith(".owner")) continue;
    const file = path.join(owners, name);
    let age: number;
    try {
      age = Date.now() - lstatSync(file).mtimeMs;
    } catch {
      continue;
    }
    // Read as a lock is (a named pipe in its place blocked every multi-key lock of the process).
    const content = readLockText(file);
    if (content === "unreadable") continue;
    const owner = content === "absent" ? "" : (content.split("\n")[0] ?? "");
    // Empty: being written by its creator right now, or left so by a crash; the pid in its name
    // decides (a live pid keeps it). An owner of another pid namespace (a live one may be linking
    // its locks to it, and would fail) is never judged; one without a namespace (an older
    // version's, or empty) by pid as before: removing an owner file releases no lock.
    const identity = owner === "" ? `${Number(name.split("-")[0])}:?` : owner;
    const dead = identity.split(":").length > 2 ? isSurelyDead(identity, age, UNJUDGED_AGE_MS) : !isProcessAlive(identity);
    if (!dead) continue;
    await unlink(file).then(
      () => removed++,
      () => undefined,
    );
  }
  return removed;
}

/**
 * Creates the lock file `file` as a hard link to `owner` (one `link` call, as exclusive as
 * `O_EXCL`: it fails when the name exists, and the lock is never seen empty); false when held.
 * Synchronous: a batch links hundreds of lock files in one loop (see `inSyncSlices`).
 */
function tryLinkLockSync(file: string, owner: string): boolean {
  try {
    linkSync(owner, file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  }
}

/**
 * Removes lock files taken by this process (one synchronous loop: each is a metadata step). A
 * file that cannot be removed is left (a lock of this live process; broken once it is dead).
 */
async function unlinkLocks(files: readonly string[]): Promise<void> {
  await inSyncSlices(
    files,
    (file) => unlinkSync(file),
    (file) => unlink(file),
  );
}

/**
 * Takes the lock files of `sorted` keys as if one by one in order, but batched: every free lock is
 * created at once; from the first key found held, the locks already taken after it are released
 * and the rest are taken in order, waiting. Holding only keys before the one waited for is what
 * taking them one by one in sorted order does, so two callers cannot deadlock. Returns the lock
 * files taken, for one {@link unlinkLocks} pass.
 */
async function acquireFileLocks(sorted: readonly string[]): Promise<string[]> {
  if (sorted.length === 1) return [await acquireFileLock(sorted[0] as string)];
  const directory = lockDirectory();
  const files = sorted.map((key) => lockFileOf(key, directory));
  // Many keys: one file with this process's identity, linked under each lock's name.
  const owner = await ownerFile(directory);
  const taken: boolean[] = files.map(() => false);
  let errors: unknown[];
  try {
    errors = await inSyncSlices(
      files,
      (file, index) => {
        taken[index] = tryLinkLockSync(file, owner);
      },
      async (file, index) => {
        taken[index] = await link(owner, file).then(
          () => true,
          (error: NodeJS.ErrnoException) => {
            if (error.code === "EEXIST") return false;
            throw error;
          },
        );
      },
    );
  } finally {
    await unlink(owner).catch(() => undefined);
  }
  const failed = errors.find((error) => error !== undefined);
  if (failed !== undefined) {
    await unlinkLocks(files.filter((_, index) => taken[index]));
    throw failed;
  }
  const firstHeld = taken.indexOf(false);
  if (firstHeld === -1) return files;
  const held = files.slice(0, firstHeld);
  await unlinkLocks(files.slice(firstHeld).filter((_, index) => taken[firstHeld + index]));
  try {
    for (const key of sorted.slice(firstHeld)) held.push(await acquireFileLock(key));
  } catch (error) {
    await unlinkLocks(held);
    throw error;
  }
  return held;
}

/**
 * Runs `task` holding the locks of every key (real file identities): in this process through the
 * shared table, across processes through lock files. Keys are taken in sorted order (the lock
 * files in one batch, see `acquireFileLocks`), so two callers locking overlapping sets cannot
 * deadlock.
 */
export async function withFileLocks<T>(keys: readonly string[], task: () => Promise<T>): Promise<T> {
  const sorted = [...new Set(keys)].sort();
  // Lock files another user could plant would block or fake locks: the directory must be ours alone.
  await ensurePrivateDirectory(lockBase(), lockDirectory());
  // Once per process and lock directory, in the background: dead holders' locks and logs.
  startStateSweep();
  const inProcess = await acquireAllInProcess(sorted);
  try {
    const files = await acquireFileLocks(sorted).catch((error: unknown) => {
      throw lockDirectoryError(error);
    });
    try {
      return await task();
    } finally {
      // One pass for every lock file (a 500-file change made 500 passes, one awaited per file).
      await unlinkLocks(files);
    }
  } finally {
    for (const release of inProcess.reverse()) release();
  }
}
