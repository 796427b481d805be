import { createHash } from "node:crypto";
import { mkdir, readFile, rmdir, stat, unlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { ToolError } from "agent-tool-catalog";
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

/** Runs `task` after every earlier task of `key` in this process has settled. */
async function inProcess<T>(key: string, task: () => Promise<T>): Promise<T> {
  const previous = table.tails.get(key) ?? Promise.resolve();
  const current = previous.then(task, task);
  const tail = current.catch(() => undefined);
  table.tails.set(key, tail);
  try {
    return await current;
  } finally {
    if (table.tails.get(key) === tail) table.tails.delete(key);
  }
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
 * Takes the OS-visible lock of `key`: a lock file created with `link` (atomic, fails if present)
 * holding `pid:start-time`. A lock whose owner is dead (or whose pid was reused) is stale and is
 * broken under a second, short-lived break lock, so two waiters never both break it.
 */
async function acquireFileLock(key: string): Promise<() => Promise<void>> {
  // Lock files another user could plant would block or fake locks: the directory must be ours alone.
  await ensurePrivateDirectory(lockBase(), lockDirectory());
  const file = lockFileOf(key);
  const content = `${OWN_PROCESS}\n${key}\n`;
  const started = Date.now();
  let delay = 1;
  for (;;) {
    try {
      // O_CREAT | O_EXCL: exactly one creator wins. A reader may see it empty for a moment; an
      // empty lock counts as live until it is old (see breakIfStale).
      await writeFile(file, content, { flag: "wx", mode: 0o600 });
      return async () => {
        await unlink(file).catch(() => undefined);
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    await breakIfStale(file);
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
 * Runs `task` holding the locks of every key (real file identities): in this process through the
 * shared table, across processes through lock files. Keys are taken in sorted order, so two
 * callers locking overlapping sets cannot deadlock.
 */
export async function withFileLocks<T>(keys: readonly string[], task: () => Promise<T>): Promise<T> {
  const sorted = [...new Set(keys)].sort();
  const locked = sorted.reduceRight<() => Promise<T>>(
    (inner, key) => () =>
      inProcess(key, async () => {
        const release = await acquireFileLock(key);
        try {
          return await inner();
        } finally {
          await release();
        }
      }),
    task,
  );
  return locked();
}
