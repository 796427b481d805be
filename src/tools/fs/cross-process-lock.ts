import { createHash, randomBytes } from "node:crypto";
import { link, mkdir, readFile, rmdir, stat, unlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { ToolError } from "agent-tool-catalog";
import { inParallel } from "./in-parallel.js";
import { ensurePrivateDirectory } from "./private-state-directory.js";
import { isProcessAlive, OWN_PROCESS } from "./process-identity.js";

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
  let release = () => {};
  const done = new Promise<void>((resolve) => {
    release = resolve;
  });
  const tail = previous.then(
    () => done,
    () => done,
  );
  table.tails.set(key, tail);
  await previous.catch(() => undefined);
  return () => {
    release();
    if (table.tails.get(key) === tail) table.tails.delete(key);
  };
}

const WAIT_LIMIT_MS = 60_000;
const BREAK_LOCK_STALE_MS = 10_000;

/** The directory of lock files, private to this user. Override with `AGENT_TOOL_CATALOG_LOCK_DIR`. */
export function lockDirectory(): string {
  return path.join(lockBase(), process.env.AGENT_TOOL_CATALOG_LOCK_DIR === undefined ? "locks" : "");
}

function lockBase(): string {
  const uid = typeof process.getuid === "function" ? process.getuid() : "user";
  return process.env.AGENT_TOOL_CATALOG_LOCK_DIR ?? path.join(tmpdir(), `agent-tool-catalog-${uid}`);
}

function lockFileOf(key: string): string {
  return path.join(lockDirectory(), `${createHash("sha256").update(key).digest("hex").slice(0, 40)}.lock`);
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Creates the lock file of `key` (`O_CREAT | O_EXCL`: exactly one creator wins); false when held.
 * With `owner` (a file already holding this process's identity), the lock is a hard link to it:
 * one `link` call, as exclusive as `O_EXCL` (it fails when the name exists), and never seen empty.
 */
async function tryFileLock(key: string, owner?: string): Promise<(() => Promise<void>) | undefined> {
  const file = lockFileOf(key);
  try {
    // A reader may see it empty for a moment; an empty lock counts as live until it is old (see breakIfStale).
    if (owner === undefined) await writeFile(file, `${OWN_PROCESS}\n${key}\n`, { flag: "wx", mode: 0o600 });
    else await link(owner, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return undefined;
    throw error;
  }
  return async () => {
    await unlink(file).catch(() => undefined);
  };
}

/**
 * Takes the OS-visible lock of `key`: a lock file created with `O_EXCL` holding `pid:start-time`,
 * waiting while another process holds it. A lock whose owner is dead (or whose pid was reused) is
 * stale and is broken under a second, short-lived break lock, so two waiters never both break it.
 */
async function acquireFileLock(key: string): Promise<() => Promise<void>> {
  const started = Date.now();
  let delay = 1;
  for (;;) {
    const release = await tryFileLock(key);
    if (release !== undefined) return release;
    await breakIfStale(lockFileOf(key));
    if (Date.now() - started > WAIT_LIMIT_MS) {
      throw new ToolError(
        "file_locked",
        "Another process has held the lock on this file for over a minute. Nothing was written.",
        {
          hint: "Try again later.",
        },
      );
    }
    await pause(delay);
    delay = Math.min(delay * 2, 20);
  }
}

async function breakIfStale(file: string): Promise<void> {
  const holder = await readFile(file, "utf8").catch(() => undefined);
  if (holder === undefined) return;
  const owner = holder.split("\n")[0] ?? "";
  if (owner === "") {
    // Being written by its creator right now, or left empty by a crash in between: wait until old.
    const age = await stat(file).then(
      (stats) => Date.now() - stats.mtimeMs,
      () => 0,
    );
    if (age < BREAK_LOCK_STALE_MS) return;
  } else if (isProcessAlive(owner)) return;
  const breaker = `${file}.break`;
  try {
    await mkdir(breaker);
  } catch {
    const age = await stat(breaker).then(
      (stats) => Date.now() - stats.mtimeMs,
      () => 0,
    );
    if (age > BREAK_LOCK_STALE_MS) await rmdir(breaker).catch(() => undefined);
    return;
  }
  try {
    // Under the break lock: still the same dead holder? Then nobody live can hold it: remove it.
    const again = await readFile(file, "utf8").catch(() => undefined);
    if (again === holder) {
      // Counted before the unlink: a waiter that wins the lock next must see the count change.
      table.staleBreaks = (table.staleBreaks ?? 0) + 1;
      await unlink(file).catch(() => undefined);
    }
  } finally {
    await rmdir(breaker).catch(() => undefined);
  }
}

/**
 * A new file in the lock directory holding this process's identity, as a lock file does (its
 * name ends in `.owner`, never `.lock`, so no lock is ever mistaken for it).
 */
async function ownerFile(): Promise<string> {
  const file = path.join(lockDirectory(), `${process.pid}-${randomBytes(6).toString("hex")}.owner`);
  await writeFile(file, `${OWN_PROCESS}\n`, { flag: "wx", mode: 0o600 });
  return file;
}

/**
 * Takes the lock files of `sorted` keys as if one by one in order, but batched: every free lock is
 * created at once; from the first key found held, the locks already taken after it are released
 * and the rest are taken in order, waiting. Holding only keys before the one waited for is what
 * taking them one by one in sorted order does, so two callers cannot deadlock.
 */
async function acquireFileLocks(sorted: readonly string[]): Promise<(() => Promise<void>)[]> {
  const attempts: ((() => Promise<void>) | undefined)[] = sorted.map(() => undefined);
  const releaseAll = (releases: readonly ((() => Promise<void>) | undefined)[]) =>
    Promise.all(releases.map((release) => release?.()));
  // Many keys: one file with this process's identity, linked under each lock's name.
  const owner = sorted.length > 1 ? await ownerFile() : undefined;
  try {
    await inParallel(sorted, async (key, index) => {
      attempts[index] = await tryFileLock(key, owner);
    });
  } catch (error) {
    await releaseAll(attempts);
    throw error;
  } finally {
    if (owner !== undefined) await unlink(owner).catch(() => undefined);
  }
  const firstHeld = attempts.indexOf(undefined);
  if (firstHeld === -1) return attempts as (() => Promise<void>)[];
  const held = attempts.slice(0, firstHeld) as (() => Promise<void>)[];
  await releaseAll(attempts.slice(firstHeld));
  try {
    for (const key of sorted.slice(firstHeld)) held.push(await acquireFileLock(key));
  } catch (error) {
    await releaseAll(held);
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
  const inProcess: (() => void)[] = [];
  try {
    for (const key of sorted) inProcess.push(await acquireInProcess(key));
    const files = await acquireFileLocks(sorted);
    try {
      return await task();
    } finally {
      await Promise.all(files.map((release) => release()));
    }
  } finally {
    for (const release of inProcess.reverse()) release();
  }
}
