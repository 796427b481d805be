/**
 * The bounded sweep of dead holders' state in the private lock and state directories.
 *
 * Why: a process killed while it holds a file lock leaves its lock file (`locks/<hash>.lock`),
 * and one killed mid-change leaves its intent log (`intents/<workspace>/<pid>-<hex>.json`). Until
 * stop 53 they were dealt with only when someone next wanted that lock or used that workspace;
 * test kill loops left ~57,000 lock files and ~21,000 intent directories on one machine, never
 * looked at again.
 *
 * When: once per process and pair of directories (lock directory, state directory), and at most
 * once a minute per lock directory whichever process starts it (see `claimSweep`), started by the
 * first `withFileLocks` of the process there and run in the background: slices of synchronous
 * work that yield once {@link SLICE_MS} has passed (one entry's calls at least), then pause
 * {@link SLICE_PAUSE_MS} (an unreferenced timer: it never keeps a process alive, and a process that
 * exits first simply sweeps less). The lock call that started it does not wait for it; a slice
 * holds the event loop for {@link SLICE_MS} plus at most one entry's metadata calls. Each sweep
 * examines at most {@link MAX_INTENT_DIRECTORIES} intent directories and {@link MAX_LOCK_ENTRIES}
 * entries of the lock directory, from the start of the listing (a directory handle read as far as
 * the budget: the rest of a huge directory is not even listed); what it removes leaves room for
 * the next process's sweep, so litter goes over a few process starts at a bounded cost each.
 *
 * What is judged dead (see `isSurelyDead`, the one judge: a waiter that finds a lock held asks it
 * too, through `judgeLockFile`): a holder named `pid:start:namespace` of this pid namespace whose
 * pid runs no more or runs a process with another start time (a reused pid is not its holder). A
 * holder in another pid namespace (a container sharing `/tmp`) is never judged: its state is kept.
 * State whose namespace cannot be told is judged only once {@link UNJUDGED_AGE_MS} old (nobody
 * holds a lock or keeps a change in flight for an hour) and its pid dead here: written before the
 * namespace was recorded (`pid:start`), without a start time (`pid:?`), and the leftovers that name
 * their owner by the pid in their file name only (below). Where this process cannot read its own
 * namespace (no `/proc`: macOS, whose pids are global) such state is judged by pid as before.
 * Every kind of state is also left alone until {@link SWEEP_MIN_AGE_MS} old: a recent death is the
 * on-demand path's to deal with, where someone is waiting (and a test that inspects what a kill
 * left is not raced).
 *
 * In what order, and how:
 * 1. Intent directories. A log of a dead owner is never just deleted: it may describe a committed
 *    multi-file change half on disk, and only its replay keeps it all-or-nothing. The directory is
 *    recovered exactly as a workspace's first use recovers it (`recoverDeadLogs`: the same recovery
 *    lock, the same roll forward or back, the same kept log of what cannot be reached), through a
 *    confined scope of the log's workspace, with this sweep's stricter judge of who is dead. Logs
 *    whose entries lie outside the workspace (an unrestricted run's) are kept for an unconfined
 *    recovery, as a confined workspace recovery keeps them.
 *    When the workspace itself is gone (its root path does not exist), there is nothing the log
 *    could finish now, but a workspace that comes back (an unmounted disk, a restored copy) must
 *    still be recovered on first use: the log is kept for {@link WORKSPACE_GONE_KEEP_MS} after it
 *    was last written and removed after that (a week covers a disk unplugged over a weekend;
 *    keeping them for ever is what piled up 21,000 directories). A root that cannot be looked at
 *    (permissions, I/O) keeps the log. An empty intent directory is removed once
 *    {@link SWEEP_MIN_AGE_MS} old (`IntentLog.prepare` makes it again if a writer raced the removal).
 *    Leftovers (`leftoverOwner`): a log that does not parse (cut short by a crash while its
 *    prepared record was written, before any temporary file existed) and a `.next` file (a kept
 *    or replacing log whose rename a crash prevented: the log is still whole) hold nothing a replay
 *    needs, and name their owner by the pid in their name only. A recovery removes them once that
 *    owner is dead; where none runs (no parsed log of a dead owner names the workspace) the sweep
 *    removes them under the workspace's recovery lock, on the same judgement (an hour old, the pid
 *    dead here). Kept for ever before: growth without bound for what is surely nobody's, where the
 *    rule that protects a live holder (an hour without a write, which no change in flight or log
 *    being written goes without) already holds for an older version's state. A log that is not a
 *    regular file (a named pipe, a link, over 64 MiB) is nothing this package wrote and is left.
 * 2. Lock files (`*.lock`, regular files only, read without following links and without blocking:
 *    a FIFO in a lock's place is skipped). A dead holder's lock is removed under its break lock,
 *    the way a waiter breaks it (see `breakDeadLockSync`), and the break is counted, so this
 *    process recovers a workspace again before it touches a file whose lock it broke. Break locks
 *    (`*.lock.break`) a crash left are removed once old. Owner files have their own reclaim
 *    (`reclaimStaleOwnerFiles`).
 * A directory that refuses a removal (read-only, EACCES) ends that part of the sweep: nothing is
 * retried in a loop, nothing waits.
 */

import type { Dir } from "node:fs";
import { lstatSync, mkdirSync, opendirSync, realpathSync, rmdirSync, unlinkSync, utimesSync } from "node:fs";
import path from "node:path";
import { createConfinedFileScope } from "./confined-file-scope.js";
import { breakDeadLockSync, judgeLockFile, type LockJudgement, lockDirectory } from "./cross-process-lock.js";
import {
  type DeadOwnerJudge,
  intentDirectory,
  intentsRoot,
  leftoverOwner,
  readLogText,
  recoverDeadLogs,
  removeDeadLeftovers,
} from "./intent-log.js";
import { isSurelyDead, UNJUDGED_AGE_MS } from "./process-identity.js";

export { UNJUDGED_AGE_MS };

/** State younger than this (by mtime) is never swept: the on-demand path handles recent deaths. */
export const SWEEP_MIN_AGE_MS = 10 * 60_000;
/** A dead owner's log of a workspace that no longer exists is kept this long, then removed. */
export const WORKSPACE_GONE_KEEP_MS = 7 * 24 * 60 * 60_000;
/** Entries of the lock directory one sweep examines at most. */
export const MAX_LOCK_ENTRIES = 2000;
/** Intent directories one sweep examines at most. */
export const MAX_INTENT_DIRECTORIES = 1000;
/**
 * The bounds sweeps use: {@link MAX_LOCK_ENTRIES} lock-directory entries and
 * {@link MAX_INTENT_DIRECTORIES} intent directories. Internal (the package does not export it): a
 * test lowers them to prove the bound on a directory a few times larger than it, not one of
 * thousands of entries, and puts them back.
 */
export const sweepBounds: { lockEntries: number; intentDirectories: number } = {
  lockEntries: MAX_LOCK_ENTRIES,
  intentDirectories: MAX_INTENT_DIRECTORIES,
};
/** Entries read from a directory handle at once (each then handled on its own clock check). */
export const SLICE_ENTRIES = 128;
/**
 * How long one slice of synchronous work may hold the event loop (ms) before it yields. A removal
 * is three metadata calls (break lock made, lock removed, break lock removed): at load 30 on a
 * busy disk they took 5 ms, so a slice counted in entries alone held the loop for a second.
 */
export const SLICE_MS = 4;
/** The pause between two slices (ms): the sweep takes at most about a third of the loop's time. */
export const SLICE_PAUSE_MS = 8;
/** The sweep's judgement of a lock (see `judgeLockFile`): nothing younger than {@link SWEEP_MIN_AGE_MS}. */
const SWEEP_JUDGEMENT: LockJudgement = { minAgeMs: SWEEP_MIN_AGE_MS, emptyAfterMs: SWEEP_MIN_AGE_MS };

/** What one sweep did. */
export interface SweepReport {
  /** Lock directory entries examined. */
  locksExamined: number;
  /** Dead holders' lock files removed. */
  locksRemoved: number;
  /** Stale break locks removed. */
  breakLocksRemoved: number;
  /** Intent directories examined. */
  intentDirectoriesExamined: number;
  /** Empty intent directories removed. */
  intentDirectoriesRemoved: number;
  /** Intent directories recovered (their dead owners' logs replayed as on first use). */
  intentDirectoriesRecovered: number;
  /** Logs of dead owners left after the sweep (workspace gone but recent, out of reach, failed). */
  logsKept: number;
  /** Logs of dead owners removed because their workspace is gone for {@link WORKSPACE_GONE_KEEP_MS}. */
  logsOfGoneWorkspacesRemoved: number;
  /** Unparsable logs and `.next` files of dead owners removed (see `removeDeadLeftovers`). */
  leftoversRemoved: number;
  /** Entries skipped because they could not be read or removed (not regular files, refused). */
  skipped: number;
  /** Slices run (turns of the event loop used). */
  slices: number;
}

/** Where a sweep looks: the lock directory, the directory of intent directories. */
export interface SweepDirectories {
  readonly locks: string;
  readonly intents: string;
}

const emptyReport = (): SweepReport => ({
  locksExamined: 0,
  locksRemoved: 0,
  breakLocksRemoved: 0,
  intentDirectoriesExamined: 0,
  intentDirectoriesRemoved: 0,
  intentDirectoriesRecovered: 0,
  logsKept: 0,
  logsOfGoneWorkspacesRemoved: 0,
  leftoversRemoved: 0,
  skipped: 0,
  slices: 0,
});

/** The sweeps started in this process, per pair of directories (shared by the ESM and CJS builds). */
const started: Map<string, Promise<SweepReport>> = (() => {
  const key = Symbol.for("agent-tool-catalog.state-sweeps.v1");
  const holder = globalThis as { [key]?: Map<string, Promise<SweepReport>> };
  holder[key] ??= new Map();
  return holder[key];
})();

/**
 * Starts this process's sweep of the current lock and state directories unless one was started
 * already; returns its report's promise (never rejects). Called by every `withFileLocks`: after
 * the first, a map lookup.
 */
export function startStateSweep(): Promise<SweepReport> {
  const directories = { locks: lockDirectory(), intents: intentsRoot() };
  const key = `${directories.locks}\u0000${directories.intents}`;
  let sweep = started.get(key);
  if (sweep === undefined) {
    sweep = claimSweep(directories.locks) ? sweepStaleState(directories) : Promise.resolve(emptyReport());
    started.set(key, sweep);
  }
  return sweep;
}

/** How often (ms) at most a sweep of a lock directory starts, whichever process starts it. */
export const SWEEP_INTERVAL_MS = 60_000;

/**
 * True when no process started a sweep of `locks` in the last {@link SWEEP_INTERVAL_MS} (by the
 * mtime of its `sweep.stamp` directory, made or touched here): processes started together (a host's workers, a
 * test's kill loop starting one process per kill) would otherwise all sweep the same entries at
 * once, each paying the same CPU. A stamp that cannot be written (a read-only directory) means no
 * sweep: it could remove nothing.
 */
function claimSweep(locks: string): boolean {
  const stamp = path.join(locks, "sweep.stamp");
  try {
    if (Date.now() - lstatSync(stamp).mtimeMs < SWEEP_INTERVAL_MS) return false;
  } catch {}
  try {
    // A directory, not a file: what a host or a check lists as the lock directory's files stays
    // its locks alone (an older build's stamp file is touched the same way).
    mkdirSync(stamp, { mode: 0o700 });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") return false;
  }
  try {
    const now = new Date();
    utimesSync(stamp, now, now);
    return true;
  } catch {
    return false;
  }
}

/** A pause of {@link SLICE_PAUSE_MS} that does not keep the process alive. */
const nextTurn = () =>
  new Promise<void>((resolve) => {
    setTimeout(resolve, SLICE_PAUSE_MS).unref();
  });

/**
 * Sweeps `directories` now (see the module's comment): intent directories first, then lock files.
 * Best effort: never rejects; what it could not do is counted in the report.
 */
export async function sweepStaleState(directories: SweepDirectories, now = Date.now()): Promise<SweepReport> {
  const report = emptyReport();
  try {
    await sweepIntents(directories.intents, now, report);
  } catch {
    report.skipped++;
  }
  try {
    await sweepLocks(directories.locks, now, report);
  } catch {
    report.skipped++;
  }
  return report;
}

/**
 * Reads `limit` entries at most from `directory` in slices, calling `each` (synchronous) on every
 * one; `each` returns false to end the walk (a directory that refuses removals). The directory
 * handle is read only as far as needed.
 */
async function walkSliced(
  directory: string,
  limit: number,
  report: SweepReport,
  each: (name: string) => boolean | Promise<boolean>,
): Promise<void> {
  let handle: Dir;
  try {
    handle = opendirSync(directory);
  } catch {
    return;
  }
  try {
    let seen = 0;
    const names: string[] = [];
    while (seen < limit) {
      await nextTurn();
      report.slices++;
      const sliceStart = performance.now();
      do {
        if (names.length === 0) {
          for (let entry = handle.readSync(); entry !== null; entry = names.length < SLICE_ENTRIES ? handle.readSync() : null)
            names.push(entry.name);
          if (names.length === 0) return;
        }
        seen++;
        if (!(await each(names.shift() as string))) return;
      } while (seen < limit && performance.now() - sliceStart < SLICE_MS);
    }
  } finally {
    handle.closeSync();
  }
}

/** Milliseconds since `file` was last written, or undefined when it cannot be looked at. */
function ageOf(file: string, now: number): number | undefined {
  try {
    return now - lstatSync(file).mtimeMs;
  } catch {
    return undefined;
  }
}

/** A failure that says the directory refuses changes: the rest of the walk would fail alike. */
const refusesChanges = (error: unknown) => ["EROFS", "EACCES", "EPERM"].includes((error as NodeJS.ErrnoException).code ?? "");

/** The sweep's judge of a log's owner (see the module's comment): surely dead, and old enough. */
function sweepJudge(now: number): DeadOwnerJudge {
  return (owner, file) => {
    const age = ageOf(file, now);
    return age !== undefined && age >= SWEEP_MIN_AGE_MS && isSurelyDead(owner, age, UNJUDGED_AGE_MS);
  };
}

async function sweepIntents(root: string, now: number, report: SweepReport): Promise<void> {
  const judge = sweepJudge(now);
  await walkSliced(root, sweepBounds.intentDirectories, report, async (name) => {
    if (!/^[0-9a-f]{32}$/.test(name)) return true;
    report.intentDirectoriesExamined++;
    const directory = path.join(root, name);
    let names: string[] | undefined;
    try {
      names = listOrRemoveEmpty(directory, now, report);
    } catch (error) {
      report.skipped++;
      return !refusesChanges(error);
    }
    if (names === undefined) return true;
    const dead = deadLogs(directory, names, now, judge);
    if (dead.length > 0 && !(await settleDeadLogs(directory, dead, now, judge, report))) return false;
    // Unparsable logs and `.next` files: a recovery above removed those of dead owners; where none
    // ran (no parsed log of a dead owner names the workspace), they are removed here on the same
    // judgement, or they would stay for ever (see the module's comment).
    if (!names.some((log) => isDeadLeftover(directory, log, judge))) return true;
    try {
      report.leftoversRemoved += await removeDeadLeftovers(directory, judge);
    } catch {
      report.skipped++;
    }
    return true;
  });
}

/**
 * The names in intent directory `directory`; undefined when it is not a directory, or is empty
 * (then removed once {@link SWEEP_MIN_AGE_MS} old). Throws what the file system refused.
 */
function listOrRemoveEmpty(directory: string, now: number, report: SweepReport): string[] | undefined {
  const stats = lstatSync(directory);
  if (!stats.isDirectory()) return undefined;
  const names: string[] = [];
  const listing = opendirSync(directory);
  try {
    for (let entry = listing.readSync(); entry !== null; entry = listing.readSync()) names.push(entry.name);
  } finally {
    listing.closeSync();
  }
  if (names.length > 0) return names;
  if (now - stats.mtimeMs >= SWEEP_MIN_AGE_MS) {
    rmdirSync(directory);
    report.intentDirectoriesRemoved++;
  }
  return undefined;
}

/** Whether `name` in `directory` is a leftover (see `leftoverOwner`) of an owner `judge` says is dead. */
function isDeadLeftover(directory: string, name: string, judge: DeadOwnerJudge): boolean {
  const owner = leftoverOwner(directory, name);
  return owner !== undefined && judge(owner, path.join(directory, name));
}

interface DeadLog {
  readonly file: string;
  readonly root: string;
  readonly age: number;
}

/** The logs among `names` whose owner `judge` says is dead, with the workspace each names. */
function deadLogs(directory: string, names: readonly string[], now: number, judge: DeadOwnerJudge): DeadLog[] {
  const dead: DeadLog[] = [];
  for (const log of names) {
    if (!log.endsWith(".json")) continue;
    const file = path.join(directory, log);
    // Read as a recovery reads it: no link followed, never blocking on a FIFO.
    const text = readLogText(file);
    const age = ageOf(file, now);
    if (text === "absent" || text === "unreadable" || age === undefined) continue;
    let record: { owner?: unknown; root?: unknown };
    try {
      record = JSON.parse(text) as typeof record;
    } catch {
      continue;
    }
    if (typeof record.owner !== "string" || typeof record.root !== "string") continue;
    if (judge(record.owner, file)) dead.push({ file, root: record.root, age });
  }
  return dead;
}

/**
 * Replays the dead owners' logs of `directory` as the workspace's recovery does, or, the
 * workspace gone, keeps or removes them by age. False when the directory refuses removals.
 */
async function settleDeadLogs(
  directory: string,
  dead: readonly DeadLog[],
  now: number,
  judge: DeadOwnerJudge,
  report: SweepReport,
): Promise<boolean> {
  const workspace = (dead[0] as DeadLog).root;
  let real: string;
  try {
    real = realpathSync(workspace);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return removeLogsOfGoneWorkspace(dead, report);
    // Cannot be looked at (permissions, I/O): it may be there, and its logs stay.
    report.logsKept += dead.length;
    return true;
  }
  // A log in a directory that is not its workspace's (the path now leads elsewhere): left.
  if (intentDirectory(real) !== directory) {
    report.logsKept += dead.length;
    return true;
  }
  try {
    await recoverDeadLogs(createConfinedFileScope(real), directory, judge);
    report.intentDirectoriesRecovered++;
  } catch {
    report.skipped++;
  }
  report.logsKept += dead.filter(({ file }) => ageOf(file, now) !== undefined).length;
  return true;
}

/** The workspace is gone: each log is kept {@link WORKSPACE_GONE_KEEP_MS}, then removed (see the module's comment). */
function removeLogsOfGoneWorkspace(dead: readonly DeadLog[], report: SweepReport): boolean {
  for (const { file, age } of dead) {
    if (age < WORKSPACE_GONE_KEEP_MS) {
      report.logsKept++;
      continue;
    }
    try {
      unlinkSync(file);
      report.logsOfGoneWorkspacesRemoved++;
    } catch (error) {
      report.logsKept++;
      if (refusesChanges(error)) return false;
    }
    try {
      unlinkSync(`${file}.next`);
    } catch {}
  }
  return true;
}

async function sweepLocks(directory: string, now: number, report: SweepReport): Promise<void> {
  await walkSliced(directory, sweepBounds.lockEntries, report, (name) => {
    const file = path.join(directory, name);
    if (name.endsWith(".lock.break")) {
      const age = ageOf(file, now);
      if (age === undefined || age < SWEEP_MIN_AGE_MS) return true;
      try {
        rmdirSync(file);
        report.breakLocksRemoved++;
      } catch (error) {
        report.skipped++;
        return !refusesChanges(error);
      }
      return true;
    }
    if (!name.endsWith(".lock")) return true;
    report.locksExamined++;
    // The one judgement of a lock, a waiter's too (an empty lock: its creator was killed between
    // creating and writing it), with the sweep's minimum age.
    const look = judgeLockFile(file, SWEEP_JUDGEMENT, now);
    if (look.state === "unreadable") {
      report.skipped++;
      return true;
    }
    if (look.state !== "dead") return true;
    try {
      if (breakDeadLockSync(file, look.holder)) report.locksRemoved++;
    } catch (error) {
      report.skipped++;
      return !refusesChanges(error);
    }
    return true;
  });
}
