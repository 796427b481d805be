import {
  close as closeCallback,
  closeSync,
  constants,
  fchmod as fchmodCallback,
  fchmodSync,
  fchown as fchownCallback,
  fchownSync,
  fstatSync,
  fsync,
  lstatSync,
  open as openCallback,
  openSync,
  readFileSync,
  readlinkSync,
  renameSync,
  type Stats,
  statSync,
  unlinkSync,
} from "node:fs";
import type { FileHandle } from "node:fs/promises";
import { open, rename, unlink } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { ToolError } from "agent-tool-catalog";
import { assertPlainFile } from "../sandbox/file-kind.js";
import { DirectoryReplacedError } from "./directory-replaced-error.js";
import type { FileScope, ParentEntry } from "./file-scope.js";
import { FileStepError } from "./file-step-error.js";
import { inParallel } from "./in-parallel.js";
import { type IntentEntry, IntentLog, recoverWorkspace, writtenDigest } from "./intent-log.js";
import { movedSinceCheck } from "./moved-since-check.js";
import { directoryGroups, directoryWindow, openFileWindow } from "./open-file-limit.js";
import { type OpenedParent, openParentsOf, type ReadOutcome } from "./parent-batch.js";
import { randomHex } from "./random-hex.js";
import { readEntryWithStatsSync } from "./read-entry.js";
import { type ReadLook, racy, unchangedSinceRead } from "./read-look.js";
import { madeChainOf, removeMadeDirectories, removeMadeIfStillThere, removeMadeThroughHeld } from "./remove-made-directories.js";
import { ReplacedInodes } from "./replaced-inodes.js";
import { inSyncSlices, StepPacer } from "./sync-slices.js";
import { useThenClose } from "./use-then-close.js";
import { DESCRIPTOR_PATHS, heldDescriptor } from "./verified-directory.js";
import { contentBytes, type WritableContent, writeContent, writeContentSync } from "./write-pieces.js";

/** One file's new state: content (or a function filling the temporary file), or `undefined` to delete. */
export interface TransactionChange {
  /** The path as the model gave it. */
  readonly path: string;
  /** The content to leave; `undefined` deletes the file. */
  readonly after: WritableContent | ((handle: FileHandle) => Promise<void>) | undefined;
  /** Permission bits; default: the existing file's, else `0o666` less the umask. */
  readonly mode?: number;
  /**
   * The content the caller's `verify` will compare the file with (`undefined`: none). A read
   * that finds exactly these bytes hands back this buffer rather than a copy.
   */
  readonly expected?: Buffer | undefined;
  /**
   * How the file looked when `expected` was read from it: where an `lstat` now proves it
   * unchanged since (`unchangedSinceRead`), the check hands back `expected` without reading it.
   */
  readonly expectedLook?: ReadLook;
}

/** Options of {@link applyFileChanges}. */
export interface TransactionOptions {
  /**
   * Called once every file's directory is open and before anything is written (the caller holds
   * the locks), with each change's current content read through its verified directory, in the
   * order of the changes. An entry is `undefined` where that read met anything but a plain file or
   * a missing one (the caller reads that path alone for the exact answer). Throwing aborts the
   * transaction with nothing changed (made directories are removed again).
   */
  readonly verify?: (current: readonly (ReadOutcome | undefined)[]) => Promise<void>;
  /**
   * Directories opened earlier for some of the paths (by path as given; still owned, and closed,
   * by the caller): the scope reuses one instead of walking to it again where it is provably what
   * a walk made now would open (see `openParentsOf`).
   */
  readonly held?: ReadonlyMap<string, ParentEntry>;
  /**
   * The call's signal: once it has fired, the transaction stops before its commit point with
   * nothing changed. The run has already answered `aborted`, so a change made after that would
   * land unreported.
   */
  readonly signal?: AbortSignal;
}

/**
 * Raised when a transaction failed after some files were changed on disk. It never leaves
 * restoring to the caller (a second change would not be covered by the same log): either the
 * transaction took the change back itself (`ending` "reverted", see `revertInGroups`,
 * `revertOneGroup`) or it could neither complete nor take it back and handed its log, still
 * saying `committed`, to the workspace's recovery (`ending` "handed_to_recovery", see
 * `rollForward`), which rolls the change forward.
 */
export class TransactionError extends Error {
  constructor(
    override readonly cause: unknown,
    /**
     * Paths (as given) whose new state is on disk: the files the revert could not put back
     * ("reverted"), or the files renamed before the log was handed over (the others keep their old
     * content until a recovery rolls the change forward).
     */
    readonly applied: readonly string[],
    /** How the transaction ended (see the class). */
    readonly ending: "reverted" | "handed_to_recovery",
    /**
     * Paths (as given) another writer changed after the change's renames (found at revert time):
     * left as that writer left them, not put back; not in `applied`.
     */
    readonly changedMeanwhile: readonly string[] = [],
  ) {
    super("file transaction failed");
  }
}

/** Runs `step` for one staged file, its failure tagged with the file's path. */
function forFile<T>(staged: Staged, step: (staged: Staged) => Promise<T>): Promise<T> {
  return step(staged).catch((error: unknown) => {
    throw new FileStepError(staged.change.path, error);
  });
}

export { FileStepError } from "./file-step-error.js";
export { inParallel } from "./in-parallel.js";

/** A short temporary name: a name of up to 255 bytes still has room for it beside it. */
export function temporaryName(): string {
  return `.atc-${randomHex(8)}.tmp`;
}

const WRITE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0);

interface Staged {
  readonly change: TransactionChange;
  readonly parent: ParentEntry;
  readonly temporary: string | undefined;
  /** The entry's `lstat` as the check read it under the locks (`null`: absent); not yet looked at when unset. */
  existing?: Stats | null;
  /** A grouped transaction's directory identity (device and inode) when first opened (see {@link applyInGroups}). */
  readonly directory?: string;
}

/** What a new content keeps of the file it replaces: its permission bits and its owner and group. */
interface Kept {
  /** Permission bits (set-id bits dropped); `undefined` for a new file. */
  readonly mode: number | undefined;
  /** The owner and group to give the new content, when they are not this process's own. */
  readonly owner: { readonly uid: number; readonly gid: number } | undefined;
}

const NOTHING_KEPT: Kept = { mode: undefined, owner: undefined };

/**
 * The user and group this process creates files as (`geteuid`, `getegid`), read once per change and
 * handed to every file's {@link keptOf}: two system calls per file of a 500-file change otherwise,
 * each giving the same answer. `undefined` off POSIX (no owner ids to keep there). Not kept for
 * longer than a change: a host may switch its effective ids between calls.
 */
interface WriterIds {
  readonly uid: number;
  readonly gid: number;
}

/** The effective ids new files get now (see {@link WriterIds}). */
function writerIds(): WriterIds | undefined {
  return process.geteuid === undefined || process.getegid === undefined
    ? undefined
    : { uid: process.geteuid(), gid: process.getegid() };
}

/**
 * What to keep of a replaced file; refuses to replace what is not a plain file. `known`: the
 * entry's `lstat` already taken under the locks (`null`: absent), else it is taken now. `writer`:
 * {@link writerIds}, taken once for the change.
 */
function keptOf(parent: ParentEntry, requested: string, known: Stats | null | undefined, writer: WriterIds | undefined): Kept {
  const stats = known !== undefined ? (known ?? undefined) : lstatSync(parent.at(parent.name), { throwIfNoEntry: false });
  if (stats === undefined) return NOTHING_KEPT;
  if (!stats.isSymbolicLink()) {
    assertPlainFile(stats, requested);
    assertWritable(parent, requested, stats, writer);
  }
  // Set-user-id and set-group-id bits are not carried to the new content (a write by root would
  // otherwise leave a set-id program with content the model chose).
  const mode = stats.mode & 0o1777;
  // The new content is a new inode, created as this process's user: without a chown, root editing
  // another user's file took it from them (their own file then read-only to them).
  // (No owner ids off POSIX: nothing to keep there.)
  const uid = writer?.uid ?? stats.uid;
  const gid = writer?.gid ?? stats.gid;
  const owned = stats.isSymbolicLink() || (stats.uid === uid && stats.gid === gid);
  return { mode, owner: owned ? undefined : { uid: stats.uid, gid: stats.gid } };
}

/**
 * Refuses to replace a file this process may not write (a user's read-only file, `chmod a-w`):
 * the rename needs only the directory's permission, so without this look a file the kernel would
 * refuse to open for writing was replaced all the same, and stayed read-only with the new content.
 *
 * The kernel answers it: the entry is opened for writing (not truncated, `O_NONBLOCK` so a lease
 * or a swapped-in FIFO cannot hold it) through the held directory's descriptor with `O_NOFOLLOW`,
 * so the answer is this process's effective user, groups and ACLs on the very entry the rename
 * replaces. `access(2)` by path, used before, checked the real user and followed a link the entry
 * had become since its `lstat`: a one-bit answer about a host file, and a race. Root may write any
 * file (the kernel's answer too); only `EACCES` counts, so an immutable file still fails at its
 * rename, and a running program (`ETXTBSY`) is replaced, as before.
 */
function assertWritable(parent: ParentEntry, requested: string, stats: Stats, writer: WriterIds | undefined): void {
  if (writer === undefined || writer.uid === 0) return;
  let fd: number;
  try {
    fd = openSync(parent.at(parent.name), WRITABLE_PROBE_FLAGS);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EACCES") return;
    const mode = (stats.mode & 0o777).toString(8).padStart(4, "0");
    throw new ToolError("permission_denied", `"${requested}" is read-only for this user (mode ${mode}).`, {
      hint: "Ask the user to make the file writable if it should change.",
    });
  }
  closeSync(fd);
}

/** Opens an entry for writing without changing it, following no link and waiting for nothing. */
const WRITABLE_PROBE_FLAGS =
  constants.O_WRONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0);

/** The mode a staged change's temporary file gets and the owner it keeps. */
function keptFor(staged: Staged, writer: WriterIds | undefined): Kept {
  const { change, parent } = staged;
  const kept = keptOf(parent, change.path, staged.existing, writer);
  return change.mode === undefined ? kept : { mode: change.mode, owner: kept.owner };
}

/**
 * Gives a temporary file the replaced file's owner and group, as far as this process may: root
 * may give any; another user only a group of its own (`EPERM` otherwise: the new content then
 * belongs to the writer, as with any editor that saves by rename).
 */
function keepOwnerSync(fd: number, owner: Kept["owner"]): void {
  if (owner === undefined) return;
  try {
    fchownSync(fd, owner.uid, owner.gid);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EPERM") throw error;
    try {
      fchownSync(fd, -1, owner.gid);
    } catch (groupError) {
      if ((groupError as NodeJS.ErrnoException).code !== "EPERM") throw groupError;
    }
  }
}

const chownDescriptor = promisify(fchownCallback);

/** {@link keepOwnerSync} through the thread pool. */
async function keepOwner(fd: number, owner: Kept["owner"]): Promise<void> {
  if (owner === undefined) return;
  const notPermitted = (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPERM") throw error;
    return false;
  };
  if (await chownDescriptor(fd, owner.uid, owner.gid).then(() => true, notPermitted)) return;
  await chownDescriptor(fd, -1, owner.gid).catch(notPermitted);
}

/**
 * The process's umask as the kernel reports it (Linux), or `undefined` where it cannot be read
 * without changing it (`process.umask()` sets it for a moment, racing the thread pool's opens).
 */
export function currentUmask(): number | undefined {
  try {
    const match = /^Umask:\s*([0-7]+)$/m.exec(readFileSync("/proc/self/status", "latin1"));
    return match === null ? undefined : Number.parseInt(match[1] as string, 8);
  } catch {
    return undefined;
  }
}

/**
 * True when a file opened with `mode` may not have exactly `mode` (the umask took bits off, or it
 * has bits beyond the permissions): a `fchmod` then sets it. Skipped otherwise, one call per file
 * of a 500-file change (an existing file's 0644 under umask 022 is the common case).
 */
function needsChmod(mode: number, umask: number | undefined): boolean {
  return umask === undefined || (mode & umask) !== 0 || (mode & ~0o777) !== 0;
}

/** A temporary file filled by a function (a streamed download): its own handle, written and flushed. */
async function fillStreamed(staged: Staged, writer: WriterIds | undefined): Promise<void> {
  const { change, parent, temporary } = staged;
  const fill = change.after;
  if (temporary === undefined || typeof fill !== "function") return;
  const { mode, owner } = keptFor(staged, writer);
  const handle = await open(parent.at(temporary), WRITE_FLAGS, mode ?? 0o666);
  // A failed close fails the change too (the caller removes the temporary file), without hiding
  // the filler's own error.
  await useThenClose(handle, async () => {
    await fill(handle);
    // Before the chmod: a chown may clear mode bits.
    await keepOwner(handle.fd, owner);
    // The umask applied at open: set the kept (or asked) mode exactly.
    if (mode !== undefined) await handle.chmod(mode);
    await handle.sync();
  });
}

/** Creates `staged`'s temporary file and writes its content (bytes, text or a patch's pieces, see `writeContentSync`); returns the open descriptor. */
function writeTemporarySync(staged: Staged, umask: number | undefined, writer: WriterIds | undefined): number {
  const { change, parent, temporary } = staged;
  const { mode, owner } = keptFor(staged, writer);
  const fd = openSync(parent.at(temporary as string), WRITE_FLAGS, mode ?? 0o666);
  try {
    writeContentSync(fd, change.after as WritableContent);
    // Before the chmod: a chown may clear mode bits.
    keepOwnerSync(fd, owner);
    // The umask applied at open: set the kept (or asked) mode exactly.
    if (mode !== undefined && needsChmod(mode, umask)) fchmodSync(fd, mode);
    return fd;
  } catch (error) {
    // The write's error is the one to report, not a close failing after it.
    try {
      closeSync(fd);
    } catch {
      // the descriptor is released all the same; the caller removes the temporary file
    }
    throw error;
  }
}

const openDescriptor = promisify(openCallback);
const chmodDescriptor = promisify(fchmodCallback);
const closeDescriptor = promisify(closeCallback);

/** {@link writeTemporarySync} through the thread pool (when the disk makes each step wait, see `inSyncSlices`). */
async function writeTemporaryAsync(staged: Staged, umask: number | undefined, writer: WriterIds | undefined): Promise<number> {
  const { change, parent, temporary } = staged;
  const { mode, owner } = keptFor(staged, writer);
  const fd = await openDescriptor(parent.at(temporary as string), WRITE_FLAGS, mode ?? 0o666);
  try {
    await writeContent(fd, change.after as WritableContent);
    await keepOwner(fd, owner);
    if (mode !== undefined && needsChmod(mode, umask)) await chmodDescriptor(fd, mode);
    return fd;
  } catch (error) {
    await closeDescriptor(fd).catch(() => undefined);
    throw error;
  }
}

/**
 * Temporary files written but not yet flushed and closed, at most (this many descriptors open):
 * 256, or an eighth of the process's open-file limit when that is lower (see `open-file-limit.ts`).
 */
const MAX_FLUSH_WINDOW = 256;

/**
 * Fills every temporary file and flushes it to disk. Contents given as bytes, text or pieces are written
 * synchronously in one loop paced by a `StepPacer` (creating and writing a small file is
 * microseconds in the page cache); each file's flush, the part that waits for the disk, is queued
 * to the thread pool as soon as the file is written, so the disk flushes the first files while the
 * loop writes the next (at most {@link MAX_FLUSH_WINDOW} open at once, fewer under a low open-file limit). When the disk makes the writes
 * themselves slow, the remaining ones go through the thread pool, several at a time. A function
 * filling its file (a stream) gets its own handle. Throws the first failure in order, tagged with
 * its file's path, after every file settled.
 */
async function fillTemporaries(staged: readonly Staged[]): Promise<void> {
  const written = staged.filter((entry) => entry.temporary !== undefined && typeof entry.change.after !== "function");
  const streamed = staged.filter((entry) => typeof entry.change.after === "function");
  const writer = writerIds();
  await inParallel(streamed, (entry) => forFile(entry, (each) => fillStreamed(each, writer)));
  const errors: unknown[] = [];
  const flushing = new Set<Promise<void>>();
  const flush = (fd: number, index: number) => {
    const done: Promise<void> = fsyncDescriptor(fd)
      .catch((error: unknown) => {
        errors[index] ??= error ?? new Error("flush failed");
      })
      .finally(() => {
        flushing.delete(done);
        try {
          closeSync(fd);
        } catch (error) {
          errors[index] ??= error;
        }
      });
    flushing.add(done);
  };
  const openAtOnce = openFileWindow(MAX_FLUSH_WINDOW);
  const room = async () => {
    while (flushing.size >= openAtOnce) await Promise.race(flushing);
  };
  // Read once per change (the umask is the process's, any thread's open uses it).
  const umask = currentUmask();
  const pacer = new StepPacer();
  let next = 0;
  for (; next < written.length && !pacer.slow; next++) {
    await room();
    try {
      flush(writeTemporarySync(written[next] as Staged, umask, writer), next);
    } catch (error) {
      errors[next] = error ?? new Error("write failed");
    }
    await pacer.stepped();
  }
  const rest = written.slice(next).map((entry, offset) => ({ entry, index: next + offset }));
  await inParallel(rest, async ({ entry, index }) => {
    await room();
    try {
      flush(await writeTemporaryAsync(entry, umask, writer), index);
    } catch (error) {
      errors[index] = error ?? new Error("write failed");
    }
  });
  while (flushing.size > 0) await Promise.all([...flushing]);
  const failed = errors.findIndex((error) => error !== undefined);
  if (failed !== -1) throw new FileStepError((written[failed] as Staged).change.path, errors[failed]);
}

const fsyncDescriptor = promisify(fsync);

/**
 * One change's staged entry in `parent` (see `openStaged`): a new temporary name, or, opened again
 * (`before`), the first opening's name and look; `error` when the directory's identity could not
 * be taken or is not the first opening's.
 */
function stageOne(
  change: TransactionChange,
  parent: ParentEntry,
  before: Staged | undefined,
  identityOf: (parent: ParentEntry) => string | undefined,
): { readonly staged: Staged; readonly error?: unknown } {
  let directory: string | undefined;
  try {
    directory = identityOf(parent);
  } catch (error) {
    return { staged: { change, parent, temporary: before?.temporary }, error };
  }
  if (before === undefined) {
    const temporary = change.after === undefined ? undefined : temporaryName();
    return { staged: { change, parent, temporary, ...(directory === undefined ? {} : { directory }) } };
  }
  const staged: Staged = {
    change,
    parent,
    temporary: before.temporary,
    ...(before.existing === undefined ? {} : { existing: before.existing }),
    ...(before.directory === undefined ? {} : { directory: before.directory }),
  };
  // The same path is not enough: a directory swapped for another at that path would get the
  // renames and deletes checked in the first one.
  const same = parent.realPath === before.parent.realPath && parent.name === before.parent.name && directory === before.directory;
  return same ? { staged } : { staged, error: new DirectoryReplacedError() };
}

/**
 * The error of a directory that did not open: one opened earlier in the same change (`before`) and
 * now absent (ENOENT) or not a directory (ENOTDIR) was moved away meanwhile, a `version_conflict`
 * like one replaced by another directory (see `stageOne`), not a file the patch wrongly thought was
 * there (`file_not_found`, whose message asks for `*** Add File`).
 */
function reopeningFailure(error: unknown, before: Staged | undefined): unknown {
  const code = (error as { code?: unknown } | undefined)?.code;
  return before !== undefined && (code === "ENOENT" || code === "ENOTDIR") ? new DirectoryReplacedError() : error;
}

/**
 * Opens the directory of every change and pushes each opened one to `staged` with a new temporary
 * name for a write; throws the first change whose directory could not be opened (those opened are
 * in `staged`, for the caller to close). Writes make missing directories, deletes do not: one
 * batch each, one walk per directory.
 *
 * With `earlier` (a grouped transaction opening a group again, see {@link applyInGroups}): nothing
 * is made, each change keeps its earlier temporary name and look, and a directory that is not the
 * one opened before (moved or replaced meanwhile: its real path differs) fails the change.
 */
async function openStaged(
  scope: FileScope,
  changes: readonly TransactionChange[],
  held: ReadonlyMap<string, ParentEntry> | undefined,
  staged: Staged[],
  earlier?: ReadonlyMap<TransactionChange, Staged>,
  identify = false,
): Promise<void> {
  // One `stat` per directory: the identity a grouped transaction's later openings must find.
  const identities = new Map<string, string>();
  const identityOf = (parent: ParentEntry): string | undefined => {
    if (!identify) return undefined;
    let identity = identities.get(parent.realPath);
    if (identity === undefined) {
      const stats = statSync(parent.at("."));
      identity = `${stats.dev}:${stats.ino}`;
      identities.set(parent.realPath, identity);
    }
    return identity;
  };
  const writes = changes.filter((change) => change.after !== undefined);
  const deletes = changes.filter((change) => change.after === undefined);
  const [openedWrites, openedDeletes] = await Promise.all([
    openParentsOf(
      scope,
      writes.map((change) => change.path),
      { create: earlier === undefined, follow: true, mutate: true },
      writes.map((change) => held?.get(change.path)),
    ),
    openParentsOf(
      scope,
      deletes.map((change) => change.path),
      { create: false, follow: true, mutate: true },
      deletes.map((change) => held?.get(change.path)),
    ),
  ]);
  let failure: { error: unknown } | undefined;
  const stage = (group: readonly TransactionChange[], opened: readonly OpenedParent[]) => {
    for (const [index, change] of group.entries()) {
      const entry = opened[index] as OpenedParent;
      if (!entry.ok) {
        failure ??= { error: new FileStepError(change.path, reopeningFailure(entry.error, earlier?.get(change))) };
        continue;
      }
      const made = stageOne(change, entry.parent, earlier?.get(change), identityOf);
      staged.push(made.staged);
      if (made.error !== undefined) failure ??= { error: new FileStepError(change.path, made.error) };
    }
  };
  stage(writes, openedWrites);
  stage(deletes, openedDeletes);
  if (failure !== undefined) throw failure.error;
}

/**
 * Changes several files all or nothing, crash-safe and race-free. Every file's directory is opened
 * through a verified handle (see `FileScope.openParent`); new contents go to temporary files
 * beside their targets, written and flushed in parallel; the change is logged as committed in the
 * intent log (so a crash from here on is rolled forward by the next open of the workspace); the
 * directories and targets are looked at a last time (see {@link lastLooks}); then the renames and
 * deletes are made and every touched directory is flushed once.
 *
 * A failure before the commit point, or found by the last looks, changes nothing (the commit is
 * taken back first, or the log removed where that cannot be written; temporary files and made
 * directories are removed); where the log can be neither, the change is made and
 * {@link AppliedDespiteLookError} says what the look found. A failure after the first rename is
 * taken back under the change's own log, every file as before (see `revertOneGroup`), and throws
 * {@link TransactionError} naming the files it could not put back; where it cannot be taken back
 * so, the error names the files already changed (the log taken back to the files not renamed
 * before their temporary files are removed) for the caller to restore.
 * The caller holds the files' locks. Returns the directories the change made (real paths,
 * outermost first), so that undoing it can remove them again.
 */
export async function applyFileChanges(
  scope: FileScope,
  changes: readonly TransactionChange[],
  options: TransactionOptions = {},
): Promise<string[]> {
  await recoverWorkspace(scope);
  const groups = directoryGroups(changes, (change) => path.dirname(change.path), directoryWindow());
  if (groups.length > 1) return applyInGroups(scope, changes, groups, options);
  const staged: Staged[] = [];
  let log: IntentLog | undefined;
  try {
    await openStaged(scope, changes, options.held, staged);
    options.signal?.throwIfAborted();
    if (options.verify !== undefined) await options.verify(await currentContents(scope, changes, staged));
    options.signal?.throwIfAborted();
    const entries: IntentEntry[] = staged.map(({ parent, temporary }) => ({
      directory: parent.realPath,
      name: parent.name,
      created: parent.created,
      ...(temporary === undefined ? {} : { temporary }),
    }));
    log = await IntentLog.prepare(scope.root, entries);
    await fillTemporaries(staged);
    // A writer that takes no lock may have changed a target while the temporary files were
    // written and flushed (milliseconds): a target whose lstat moved is checked again now, where
    // a conflict costs no more than a rollback. The last looks follow the commit point.
    if (staged.length > 1 && options.verify !== undefined && movedSinceCheck(targetsOf(staged))) {
      await options.verify(await currentContents(scope, changes, staged));
    }
    // The last moment the change can still be left unmade (the commit point follows).
    options.signal?.throwIfAborted();
    // One file: its rename is the commit point. Several: the durable log is.
    if (staged.length > 1) await log.commit();
  } catch (error) {
    await endLog(log, await rollBackStaged(scope, staged));
    throw error;
  }
  // The last looks, after the log's flushes, so that only the renames lie between them and the
  // files' new state (see `lastLooks`, and why a crash before the withdrawal rolls forward).
  const { verify } = options;
  const refused = await lastLooks(
    staged,
    verify === undefined ? undefined : async () => verify(await currentContents(scope, changes, staged)),
  );
  if (refused !== undefined && (staged.length === 1 || (await takenBack(log, entriesOf(staged))))) {
    await endLog(log, await rollBackStaged(scope, staged));
    throw refused.error;
  }
  const applied: string[] = [];
  try {
    await renameStaged(staged, applied);
  } catch (error) {
    // Taken back whole under the change's own log where it can be (see `revertOneGroup`); else
    // the log names the files not renamed, and the caller restores the renamed ones.
    const reverted = await revertOneGroup(scope, log, staged, applied);
    if (reverted !== undefined) {
      await closeAll(staged);
      throw new TransactionError(error, reverted.stillApplied, "reverted", reverted.changedMeanwhile);
    }
    // Else rolled forward under the same log (see `rollForward`).
    const left = staged.filter(({ change }) => !applied.includes(change.path));
    if (!(await rollForward(log, () => renameStaged(left, applied)))) {
      await closeAll(staged);
      throw new TransactionError(error, applied, "handed_to_recovery");
    }
  }
  await log.finish();
  await closeAll(staged);
  if (refused !== undefined) throw new AppliedDespiteLookError(refused);
  return madeDirectories(staged);
}

/**
 * Takes back a change of one group whose rename pass failed part way, under its own log, so that
 * no crash can leave some files new and the rest old (a second change restoring the renamed files
 * after the log was taken back left that window: a `kill -9` between the two kept them new).
 *
 * Nothing is written for this before the failure (the common path pays nothing): the old content
 * of each file is held in memory (`expected`, what the check under the locks compared it with)
 * and every directory is still held open. After the failure, while the log still says
 * `committed`: the log names a `restore` file for each file that existed
 * (`IntentLog.nameRestores`, durable: a crash from here rolls forward, every file new, the
 * `restore` files removed); they are written and flushed; the log turns `reverting`, durably
 * (`IntentLog.revert`: a crash from here is rolled back by the next recovery, every file as
 * before, see `revertEntry`); only then is each file put back (`revertOne`: a renamed file gets its
 * `restore` file back, an added one is removed, a temporary file not renamed goes; one another
 * writer changed since its rename is left as it is and named), and the log ends (kept for what
 * could not be reached, see `endLog`). Returns `undefined`, having changed nothing, where the
 * change cannot be taken back so (an old content not known as bytes, or the log or a `restore`
 * file that cannot be written: the log is then still `committed`, naming no `restore` file that
 * is left): the caller rolls the change forward instead (see `rollForward`).
 */
async function revertOneGroup(
  scope: FileScope,
  log: IntentLog,
  staged: readonly Staged[],
  applied: readonly string[],
): Promise<{ stillApplied: string[]; changedMeanwhile: string[] } | undefined> {
  const revertible = staged.every(
    ({ change, existing }) => existing !== undefined && (existing === null || Buffer.isBuffer(change.expected)),
  );
  if (!revertible) return undefined;
  const renamed = new Set(applied);
  const restores = new Map<TransactionChange, string>();
  // Every file that existed, renamed or not: a `reverting` record whose entry names a temporary
  // file and no `restore` file is an added file, whose name a recovery removes once the temporary
  // file is gone (see `revertEntry`); a file not renamed whose temporary file this revert removed
  // before a crash would be taken for one, and lost. Written only after a failure.
  for (const { change, existing } of staged) if (existing) restores.set(change, temporaryName());
  const entries = staged.map((entry) => {
    const restore = restores.get(entry.change);
    return {
      ...entriesOf([entry])[0],
      ...(restore === undefined ? {} : { restore }),
      ...writtenOf(entry.change, renamed.has(entry.change.path)),
    } as IntentEntry;
  });
  try {
    await log.nameRestores(entries);
  } catch {
    return undefined;
  }
  try {
    await writeRestores(staged, restores);
    await log.revert();
  } catch {
    // Still `committed`: the `restore` files go (a roll-forward would remove them too).
    for (const { change, parent } of staged) {
      const restore = restores.get(change);
      if (restore !== undefined) await unlink(parent.at(restore)).catch(() => undefined);
    }
    return undefined;
  }
  const stillApplied: string[] = [];
  const changedMeanwhile: string[] = [];
  const left: IntentEntry[] = [];
  const touched = new Map<string, ParentEntry>();
  for (const [index, entry] of staged.entries()) {
    const outcome = revertOne(entry, restores.get(entry.change), renamed.has(entry.change.path));
    if (outcome === "unreached") {
      if (renamed.has(entry.change.path)) stillApplied.push(entry.change.path);
      left.push(entries[index] as IntentEntry);
      continue;
    }
    if (outcome === "changed") changedMeanwhile.push(entry.change.path);
    touched.set(entry.parent.realPath, entry.parent);
  }
  await Promise.all([...touched.values()].map((parent) => parent.sync().catch(() => undefined)));
  // The directories the change made, now empty again (those of entries kept stay, with their files).
  const keep = new Set(left.flatMap((entry) => entry.created));
  const made = madeDirectories([...staged]).filter((directory) => !keep.has(directory));
  await endLog(log, left);
  await removeMadeDirectories(scope, made);
  return { stillApplied, changedMeanwhile };
}

/**
 * What a change put at a file's name, for a `reverting` record (see `IntentEntry.written`): the
 * SHA-256 of the new content of a file renamed, `""` for one not renamed and for a delete made
 * (the name then holds nothing of the change's: a file there is another writer's); nothing for a
 * delete not made or a streamed content (taken back unchecked). Computed only after a failure.
 */
function writtenOf(change: TransactionChange, renamed: boolean): { written?: string } {
  if (change.after === undefined) return renamed ? { written: "" } : {};
  if (!renamed) return { written: "" };
  if (typeof change.after === "function") return {};
  return { written: writtenDigest(contentBytes(change.after)) };
}

/** The intent log's entries of `staged` (as `IntentLog.prepare` is given them). */
function entriesOf(staged: readonly Staged[]): IntentEntry[] {
  return staged.map(({ parent, temporary }) => ({
    directory: parent.realPath,
    name: parent.name,
    created: parent.created,
    ...(temporary === undefined ? {} : { temporary }),
  }));
}

/**
 * Rolls forward, under its log still saying `committed`, a change whose rename pass failed part
 * way and that could not be taken back under that log (see `revertOneGroup`, `revertInGroups`:
 * an old content not known as bytes, or the log's `reverting` record or a `restore` file
 * refused, by a full disk, a read-only or failing state directory): `retry` makes the renames and
 * deletes not made once more, as a recovery after a crash would. True when they all landed: the
 * change is on disk whole, and the caller ends as after a pass that succeeded. Else the log is
 * handed to the workspace's recovery as it is (`IntentLog.handOver`), its temporary files kept,
 * and false: the caller answers with what is on disk and restores nothing.
 *
 * Never mixed after a crash: from the failure to the hand-over, and after it until a recovery
 * has made every rename, the log says `committed` and names every temporary file not renamed, so
 * a crash anywhere is rolled forward (every file new); a recovery whose rename is refused still
 * keeps the log (see `StuckRenameError`). Until stop 50 the log was taken back to `prepared`
 * naming only the files not renamed (their temporary files then removed) and the caller restored
 * the renamed files by a second change: a `kill -9` between the two left those new and the rest
 * old for good.
 */
async function rollForward(log: IntentLog, retry: () => Promise<void>): Promise<boolean> {
  try {
    await retry();
    return true;
  } catch {
    await log.handOver();
    return false;
  }
}

/**
 * The last looks of a change, made after its commit point (several files: the log says
 * `committed`, flushed) and right before its renames: every held directory is still at its path
 * (see {@link assertStillAtPaths}), then every target is still as the check under the locks saw
 * it (`movedSinceCheck`; one that moved is read and checked again by `recheck`, the caller's
 * `verify`). Returns the failure, if any, for the caller to take the commit back (see
 * {@link withdrawn}) and roll back; `undefined` when the renames may go on.
 *
 * Why after the commit point: a writer that takes no lock (a shell's `>>`) and changes a target
 * between the last look and its rename is overwritten unseen, and the log's commit (a write, a
 * flush, a rename, a directory flush) lay in that window for every change of several files:
 * look to first rename 0.7-5.9 ms median, up to 366 ms beside 2 CPU hogs (five files, load
 * 16-18 on 2 cores), where a shell appending every 20 ms lost 2-18 of 100 lines. Looking after
 * it leaves the look's own `lstat`s and the renames: 0.02 ms median, 0-1 of 100 lost.
 *
 * Why that is safe: until the first rename, a committed change has touched nothing but its
 * temporary files and the directories it made, so taking it back is a rollback as before the
 * commit, once the log says `prepared` again, durably (`IntentLog.withdraw`), and only then are
 * the temporary files removed. A crash between the commit and that withdrawal is rolled forward
 * by the next recovery: every file gets its new content, one state, and a change a lock-free
 * writer made after the commit is overwritten, as every such change was when the look came
 * before the commit: so rolling forward there is no worse than the order before, and only a
 * crash in these microseconds can make it happen. A crash after the withdrawal is rolled back
 * (every file as before), whichever temporary files were removed by then. Never mixed: a log
 * saying `committed` never has a temporary file removed under it (nor after a rename that failed
 * part way: see `rollForward`). Where the withdrawal cannot be written (a full disk
 * refuses the new record), the log is removed instead (`IntentLog.drop`: a removal needs no
 * space), then the change is rolled back as after a withdrawal, nothing changed (a crash between
 * the two leaves the temporary files as litter, no log to roll them forward). Only where the log
 * can be neither rewritten nor removed (its file system refusing both) does the change go on as
 * committed, as a crash would have it rolled forward, and the caller is told so: the renames are
 * made and {@link AppliedDespiteLookError} names what the look found (the directories moved, the
 * files another writer changed, whose change was overwritten); never an ok.
 */
async function lastLooks(staged: readonly Staged[], recheck: (() => Promise<void>) | undefined): Promise<Refusal | undefined> {
  // Named by the error where the change must go on all the same (the recheck takes a new look).
  let changedFiles: string[] = [];
  try {
    assertStillAtPaths(staged);
    if (recheck !== undefined && movedSinceCheck(targetsOf(staged))) {
      changedFiles = changedTargets(staged);
      await recheck();
    }
    return undefined;
  } catch (error) {
    const movedDirectories = new Set<string>();
    for (const { change, parent } of staged) if (!stillAtItsPath(parent)) movedDirectories.add(path.dirname(change.path));
    return { error, movedDirectories: [...movedDirectories], changedFiles };
  }
}

/** What a last look found that refuses the change (see {@link lastLooks}). */
interface Refusal {
  /** The failure to throw when the change is taken back. */
  readonly error: unknown;
  /** The directories (of the paths as given) whose held directory was found no longer at its path. */
  readonly movedDirectories: readonly string[];
  /** The paths (as given) whose target moved since the check (another writer's change). */
  readonly changedFiles: readonly string[];
}

/** The paths (as given) of `staged` whose target's `lstat` moved since the check. */
function changedTargets(staged: readonly Staged[]): string[] {
  return staged
    .filter(({ parent, existing }) => movedSinceCheck([{ entry: parent.at(parent.name), seen: existing }]))
    .map(({ change }) => change.path);
}

/**
 * Raised by {@link applyFileChanges} when a last look (after the commit point, see
 * {@link lastLooks}) refused a change of several files and its log could be neither taken back
 * nor removed (`IntentLog.withdraw`, `IntentLog.drop`: the intent directory's file system refusing
 * writes and removals). The log said `committed`, so the change was made, as a crash would have
 * it rolled forward: its files were renamed through the directories first opened. This tells what
 * the look had found, so that the result does not claim a state the paths do not have.
 */
export class AppliedDespiteLookError extends Error {
  /** What the look found (the error the change would have been refused with). */
  override readonly cause: unknown;
  /** Directories (of the paths as given) whose held directory had been moved or replaced: the change's files are in it, wherever it is now. */
  readonly movedDirectories: readonly string[];
  /** Paths (as given) another writer changed after the check: that change was overwritten. */
  readonly changedFiles: readonly string[];

  constructor(refusal: Refusal) {
    super(
      [
        "The change was made although its last look refused it (its log could not be taken back):",
        refusal.movedDirectories.length > 0
          ? ` its files were written into the directories held for ${refusal.movedDirectories.map((directory) => `"${directory}"`).join(", ")}, which had been moved or replaced: they are not at those paths.`
          : "",
        refusal.changedFiles.length > 0
          ? ` ${refusal.changedFiles.map((file) => `"${file}"`).join(", ")} changed after the check, and that change was overwritten.`
          : "",
        refusal.movedDirectories.length + refusal.changedFiles.length === 0 ? ` ${String(refusal.error)}.` : "",
      ].join(""),
    );
    this.name = "AppliedDespiteLookError";
    this.cause = refusal.error;
    this.movedDirectories = refusal.movedDirectories;
    this.changedFiles = refusal.changedFiles;
  }
}

/**
 * Takes a committed log back before its temporary files are removed: to `prepared` naming
 * `entries` (see `IntentLog.withdraw`), or, where that cannot be written (a full disk refuses the
 * new record), removed (`IntentLog.drop`: a removal needs no space). False when neither could be
 * done (a removal made but not flushed counts as done): the log still says `committed`, and a
 * crash would roll the change forward.
 */
async function takenBack(log: IntentLog, entries: readonly IntentEntry[]): Promise<boolean> {
  try {
    await log.withdraw(entries);
    return true;
  } catch {
    // A removal made but not flushed took the change back too (see `IntentLog.isGone`).
    return log.drop().then(
      () => true,
      () => log.isGone(),
    );
  }
}

/**
 * Makes the renames and deletes of `staged` (after the commit point), pushing each path done to
 * `applied`, and flushes every directory touched; throws the first step that failed, tagged with
 * its path, once the flushes queued have ended.
 */
async function renameStaged(staged: readonly Staged[], applied: string[]): Promise<void> {
  // Each directory is flushed as soon as its last rename or delete is made, through the thread
  // pool while the loop goes on with the next directory's: the steps are grouped by directory.
  const ordered = [...staged].sort((left, right) =>
    left.parent.realPath < right.parent.realPath ? -1 : left.parent.realPath > right.parent.realPath ? 1 : 0,
  );
  const left = new Map<string, number>();
  for (const { parent } of ordered) left.set(parent.realPath, (left.get(parent.realPath) ?? 0) + 1);
  const flushes: Promise<void>[] = [];
  const replaced = new ReplacedInodes();
  const stepDone = ({ change, parent }: Staged) => {
    applied.push(change.path);
    const remaining = (left.get(parent.realPath) ?? 1) - 1;
    left.set(parent.realPath, remaining);
    if (remaining === 0) flushes.push(parent.sync());
  };
  try {
    // Renames and deletes are metadata steps of microseconds: one synchronous loop (see `inSyncSlices`).
    const errors = await inSyncSlices(
      ordered,
      (entry) => {
        const { parent, temporary } = entry;
        // The old file is freed in a close through the thread pool, not inside the step (see `ReplacedInodes`).
        const held = replaced.hold(parent.at(parent.name), entry.existing);
        try {
          if (temporary === undefined) {
            try {
              unlinkSync(parent.at(parent.name));
            } catch (error) {
              if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
            }
          } else renameSync(parent.at(temporary), parent.at(parent.name));
        } finally {
          replaced.release(held);
        }
        stepDone(entry);
      },
      async (entry) => {
        const { parent, temporary } = entry;
        if (temporary === undefined) {
          await unlink(parent.at(parent.name)).catch((error: NodeJS.ErrnoException) => {
            if (error.code !== "ENOENT") throw error;
          });
        } else await rename(parent.at(temporary), parent.at(parent.name));
        stepDone(entry);
      },
    );
    const failed = errors.findIndex((error) => error !== undefined);
    if (failed !== -1) throw new FileStepError((ordered[failed] as Staged).change.path, errors[failed]);
  } finally {
    // The flushes queued hold the directories' descriptors: they end before those close.
    await Promise.all([...flushes, replaced.settled()]);
  }
}

/**
 * {@link applyFileChanges} of a change over more directories than one batch may hold open (see
 * `directoryWindow`): the same steps and the same commit point, made group of directories by
 * group, each group's directories closed before the next group's open. The passes over the
 * groups: open each, read what the check needs and close it (the whole check runs once, after);
 * open each again, write and flush its temporary files, close it; once the last group's are
 * flushed, look again at the last group's targets (still open) for a writer that takes no lock;
 * commit the log; open each again, last to first, and look at its targets a last time (see
 * {@link lastLooks}: a failure there takes the commit back and changes nothing); open each once
 * more, rename and delete, flush, close. A directory opened again must be the one opened first (its real path, device and
 * inode), else the change fails (`DirectoryReplacedError`; before the commit point nothing
 * changed). Crash safety is the log's, as for one group: it names every file of the change, by
 * real directory path, before any temporary file exists; after a failure it is kept for the
 * temporary files that could not be removed (see `endLog`).
 */
async function applyInGroups(
  scope: FileScope,
  changes: readonly TransactionChange[],
  groups: readonly (readonly TransactionChange[])[],
  options: TransactionOptions,
): Promise<string[]> {
  const first = new Map<TransactionChange, Staged>();
  const position = new Map(changes.map((change, index) => [change, index]));
  const current: (ReadOutcome | undefined)[] = changes.map(() => undefined);
  /** Opens `group` (again, when `first` has it), runs `step` on its staged changes, closes it. */
  const inGroup = async (
    group: readonly TransactionChange[],
    again: boolean,
    step: (staged: readonly Staged[]) => Promise<void>,
  ): Promise<void> => {
    const staged: Staged[] = [];
    try {
      await openStaged(scope, group, options.held, staged, again ? first : undefined, true);
      await step(staged);
    } finally {
      // The first opening's entries, those of a group that failed to open included: their made
      // directories are what a rollback removes.
      if (!again) for (const entry of staged) first.set(entry.change, entry);
      await closeAll(staged);
    }
  };
  const readGroup = async (group: readonly TransactionChange[], staged: readonly Staged[]) => {
    const read = await currentContents(scope, group, staged);
    for (const [index, change] of group.entries()) current[position.get(change) as number] = read[index];
    // An opening again: its look is the one a later look and the renames compare with.
    for (const entry of staged) {
      const kept = first.get(entry.change);
      if (kept !== undefined && kept !== entry && entry.existing !== undefined) kept.existing = entry.existing;
    }
  };
  // Set by `lookAgain` when a target's lstat moved since the check (its group read again).
  let moved = false;
  // The paths found moved by the last looks (named by an `AppliedDespiteLookError`).
  const movedTargets = new Set<string>();
  const lookAgain = async (group: readonly TransactionChange[], staged: readonly Staged[]) => {
    if (options.verify === undefined || !movedSinceCheck(targetsOf(staged))) return;
    moved = true;
    for (const changed of changedTargets(staged)) movedTargets.add(changed);
    await readGroup(group, staged);
  };
  /** Undoes the change before its first rename: temporary files, made directories, the log (see `endLog`). */
  // Per change that replaces a file: the name of its `restore` file (see `IntentEntry.restore`).
  const restores = new Map<TransactionChange, string>();
  // Set with the restore names: every entry then names its directory's identity too.
  let identified = false;
  /** The log's entries: every file, with its `restore` file and directory identity where the change is revertible. */
  const loggedEntries = (): IntentEntry[] =>
    [...first.values()].map(({ change, parent, temporary, directory }) => ({
      directory: parent.realPath,
      name: parent.name,
      created: parent.created,
      ...(temporary === undefined ? {} : { temporary }),
      ...(identified && directory !== undefined ? { identity: directory } : {}),
      ...(restores.has(change) ? { restore: restores.get(change) as string } : {}),
    }));
  const rollBack = async (log: IntentLog | undefined) => {
    const left = log === undefined ? [] : await removeTemporaries(scope, groups, first, restores);
    await removeMadeDirectories(scope, removeMadeOfClosed([...first.values()]));
    await endLog(log, left);
  };
  let log: IntentLog | undefined;
  try {
    for (const group of groups) {
      await inGroup(group, false, async (staged) => {
        if (options.verify !== undefined) await readGroup(group, staged);
      });
      options.signal?.throwIfAborted();
    }
    if (options.verify !== undefined) await options.verify(current);
    options.signal?.throwIfAborted();
    // Revertible where every file's look (the check's) and directory identity are known: each file
    // that exists gets a `restore` file (its content as checked) before the commit point (see `writeRestores`).
    const revertible = [...first.values()].every(
      ({ change, existing, directory }) =>
        existing !== undefined && directory !== undefined && (existing === null || Buffer.isBuffer(change.expected)),
    );
    if (revertible) for (const { change, existing } of first.values()) if (existing) restores.set(change, temporaryName());
    identified = revertible;
    log = await IntentLog.prepare(scope.root, loggedEntries(), revertible);
    // A writer that takes no lock may change a target of ANY group while the later groups'
    // temporary files are written and flushed: the last group, still open, is looked at once its
    // are (a move there costs no more than a rollback); every group's targets are looked at again
    // after the commit point (see below).
    for (const [index, group] of groups.entries()) {
      await inGroup(group, true, async (staged) => {
        await fillTemporaries(staged);
        await writeRestores(staged, restores);
        if (index === groups.length - 1) await lookAgain(group, staged);
      });
    }
    if (moved) await options.verify?.(current);
    // The last moment the change can still be left unmade (the commit point follows).
    options.signal?.throwIfAborted();
    await log.commit();
  } catch (error) {
    await rollBack(log);
    throw error;
  }
  const committed = log;
  // The last looks, after the log's flushes (see `lastLooks`: the same reasons, the same
  // withdrawal): every group opened again (its directories checked to be the ones first opened),
  // last to first, so the first groups, renamed first, are looked at last. A target that moved has
  // its group read again, and the whole check runs again on what is there now.
  let refused: Refusal | undefined;
  if (options.verify !== undefined) {
    moved = false;
    movedTargets.clear();
    refused = await (async () => {
      for (const group of [...groups].reverse()) await inGroup(group, true, (staged) => lookAgain(group, staged));
      if (moved) await options.verify?.(current);
    })().then(
      () => undefined,
      (error: unknown): Refusal => ({ error, movedDirectories: [], changedFiles: [...movedTargets] }),
    );
    // Taken back naming the `restore` files too: a crash from here removes them with the temporary files.
    if (refused !== undefined && (await takenBack(log, loggedEntries()))) {
      await rollBack(log);
      throw refused.error;
    }
  }
  const applied: string[] = [];
  try {
    for (const group of groups) await inGroup(group, true, (staged) => renameStaged(staged, applied));
  } catch (error) {
    // Revertible: taken back whole under the log, turned `reverting` first (see `revertInGroups`).
    const done = new Set(applied);
    // Each entry with what the change put at its name: a recovery takes back only that.
    const withWritten = () => {
      const changes = [...first.keys()];
      return loggedEntries().map((entry, index) => {
        const change = changes[index] as TransactionChange;
        return { ...entry, ...writtenOf(change, done.has(change.path)) };
      });
    };
    if (
      committed.revertible &&
      (await committed.revert(withWritten()).then(
        () => true,
        () => false,
      ))
    ) {
      const reverted = await revertInGroups(scope, groups, first, restores, new Set(applied));
      await removeMadeDirectories(scope, removeMadeOfClosed([...first.values()]));
      await endLog(committed, reverted.left);
      throw new TransactionError(error, reverted.stillApplied, "reverted", reverted.changedMeanwhile);
    }
    // Else rolled forward under the same log (see `rollForward`).
    const landed = await rollForward(log, async () => {
      for (const group of groups) {
        const rest = group.filter((change) => !applied.includes(change.path));
        if (rest.length > 0) await inGroup(rest, true, (staged) => renameStaged(staged, applied));
      }
    });
    if (!landed) throw new TransactionError(error, applied, "handed_to_recovery");
  }
  if (restores.size > 0) await dropRestores(scope, groups, first, restores, log);
  else await log.finish();
  if (refused !== undefined) throw new AppliedDespiteLookError(refused);
  return madeDirectories([...first.values()]);
}

/**
 * Removes the directories a failed grouped change made, each held directory's by identity (see
 * `removeMadeIfStillThere`): every group's handles are closed by then (`inGroup` closes them), so
 * the path is opened again and only the very directory made (device and inode when first opened)
 * is removed. After a swap a removal by path took a user's empty directory put at the path since
 * and left the change's own in the moved one; now the user's stays, and the change's is left
 * where it went (with its temporary file, which the kept log names: see `endLog`). Deepest held
 * directory first, so a made parent shared by two is tried after both. Returns what is to be
 * removed by path (where no handle can do it: not Linux, identity matched).
 */
function removeMadeOfClosed(staged: readonly Staged[]): string[] {
  const byPath: string[] = [];
  const walked = new Set<string>();
  const { made, holding } = madeAndHolding(staged);
  for (const { parent, directory } of holding) {
    if (directory === undefined || walked.has(parent.realPath)) continue;
    walked.add(parent.realPath);
    byPath.push(...removeMadeIfStillThere(parent.realPath, made, directory));
  }
  return byPath;
}

/**
 * Every directory the change made (the union of all held directories' `created`: see
 * `madeChainOf`), and the staged entries whose held directory is one of them, deepest first, so
 * a made parent shared by two is climbed to only after both.
 */
function madeAndHolding(staged: readonly Staged[]): { made: Set<string>; holding: Staged[] } {
  const made = new Set(staged.flatMap(({ parent }) => parent.created));
  const holding = staged.filter(({ parent }) => made.has(parent.realPath));
  holding.sort((left, right) => depthOf(right.parent.realPath) - depthOf(left.parent.realPath));
  return { made, holding };
}

/** The targets of `staged` with the look the check took of each (see `movedSinceCheck`). */
function targetsOf(staged: readonly Staged[]) {
  return staged.map(({ parent, existing }) => ({ entry: parent.at(parent.name), seen: existing }));
}

/**
 * Ends a grouped transaction's log after a failure: removed when no temporary file it names can
 * be left, else kept (abandoned, see `IntentLog.abandon`) naming those, for a recovery to remove
 * them once their directory is found at its path again. Deleting it would leave the change's new
 * content in the workspace, in a directory moved meanwhile, with nothing left to find it by.
 */
async function endLog(log: IntentLog | undefined, left: readonly IntentEntry[]): Promise<void> {
  if (log === undefined) return;
  if (left.length === 0) return log.finish();
  await log.abandon(left).catch(() => log.finish());
}

/**
 * Removes the temporary files a grouped transaction may have left, each group's directories opened
 * again; returns the log entries of those it could not remove. A directory that is no longer the
 * one first opened (moved or replaced meanwhile, by device and inode) is not touched: its
 * temporary files are in the one moved, wherever it went, and the kept log names them.
 */
async function removeTemporaries(
  scope: FileScope,
  groups: readonly (readonly TransactionChange[])[],
  first: ReadonlyMap<TransactionChange, Staged>,
  restores: ReadonlyMap<TransactionChange, string> = new Map(),
): Promise<IntentEntry[]> {
  const left: IntentEntry[] = [];
  for (const group of groups) {
    const staged: Staged[] = [];
    const known = group.filter((change) => first.get(change)?.temporary !== undefined || restores.has(change));
    await openStaged(scope, known, undefined, staged, first, true).catch(() => undefined);
    const reached = new Set<TransactionChange>();
    await Promise.all(
      staged.map(async ({ change, parent, temporary }) => {
        const before = first.get(change) as Staged;
        let identity: string | undefined;
        try {
          const stats = statSync(parent.at("."));
          identity = `${stats.dev}:${stats.ino}`;
        } catch {
          return;
        }
        if (identity !== before.directory || parent.realPath !== before.parent.realPath) return;
        const names = [temporary, restores.get(change)].filter((name) => name !== undefined);
        const removed = await Promise.all(
          names.map((name) =>
            unlink(parent.at(name)).then(
              () => true,
              (error: NodeJS.ErrnoException) => error.code === "ENOENT",
            ),
          ),
        );
        if (removed.every(Boolean)) reached.add(change);
      }),
    );
    await closeAll(staged);
    for (const change of known) {
      if (!reached.has(change)) left.push(keptEntry(first.get(change) as Staged, restores.get(change)));
    }
  }
  return left;
}

/**
 * Writes each `restore` file of `staged` (see `IntentEntry.restore`): the file's content as the
 * check under the locks saw it (`expected`, which the check compared it with), beside it, under
 * the name the log gave it before it existed, with the mode and owner the file has, flushed (as
 * the temporary files are: see `fillTemporaries`). Not a hard link, which costs no write: a file
 * with two links is refused to every reader meanwhile (`hard_link_refused`).
 */
async function writeRestores(staged: readonly Staged[], restores: ReadonlyMap<TransactionChange, string>): Promise<void> {
  const copies: Staged[] = [];
  for (const entry of staged) {
    const restore = restores.get(entry.change);
    if (restore === undefined) continue;
    copies.push({ ...entry, change: { path: entry.change.path, after: entry.change.expected as Buffer }, temporary: restore });
  }
  await fillTemporaries(copies);
}

/**
 * True when the file at `staged`'s name is still what the change wrote there (absent for a
 * delete): nothing else wrote to it since its rename. A content filled by a function (a stream)
 * is not kept to compare with: taken as written.
 */
function stillAsWritten(staged: Staged): boolean {
  const { change, parent } = staged;
  const at = parent.at(parent.name);
  const stats = lstatSync(at, { throwIfNoEntry: false });
  if (change.after === undefined) return stats === undefined;
  if (typeof change.after === "function") return true;
  if (stats === undefined || !stats.isFile()) return false;
  const written = contentBytes(change.after);
  if (stats.size !== written.byteLength) return false;
  try {
    return readFileSync(at).equals(written);
  } catch {
    return false;
  }
}

/**
 * Takes back a change made in groups whose renames failed part way (its log already `reverting`,
 * durably: a crash from here is rolled back by the next recovery, see `IntentLog.revert`): each
 * group opened again, its directories checked to be the ones first opened; a renamed (or deleted)
 * file gets its `restore` file back, an added one is removed, a temporary file not renamed goes.
 * A renamed file that is no longer what the change wrote (another writer, taking no lock, wrote
 * it since) is left as that writer left it and named in `changedMeanwhile`: putting the old
 * content back would lose that write unseen. Returns the log entries it could not reach (a
 * directory that does not open, or not the one first opened), for `endLog` to keep, and the paths
 * still as the change left them.
 */
async function revertInGroups(
  scope: FileScope,
  groups: readonly (readonly TransactionChange[])[],
  first: ReadonlyMap<TransactionChange, Staged>,
  restores: ReadonlyMap<TransactionChange, string>,
  applied: ReadonlySet<string>,
): Promise<{ left: IntentEntry[]; stillApplied: string[]; changedMeanwhile: string[] }> {
  const left: IntentEntry[] = [];
  const stillApplied: string[] = [];
  const changedMeanwhile: string[] = [];
  for (const group of groups) {
    const staged: Staged[] = [];
    await openStaged(scope, group, undefined, staged, first, true).catch(() => undefined);
    const reached = new Set<TransactionChange>();
    const touched = new Map<string, ParentEntry>();
    for (const entry of staged) {
      if (!isFirstOpened(entry, first.get(entry.change) as Staged)) continue;
      const outcome = revertOne(entry, restores.get(entry.change), applied.has(entry.change.path));
      if (outcome === "unreached") continue;
      if (outcome === "changed") changedMeanwhile.push(entry.change.path);
      reached.add(entry.change);
      touched.set(entry.parent.at("."), entry.parent);
    }
    await Promise.all([...touched.values()].map((parent) => parent.sync().catch(() => undefined)));
    await closeAll(staged);
    for (const change of group) {
      if (reached.has(change)) continue;
      if (applied.has(change.path)) stillApplied.push(change.path);
      left.push(keptEntry(first.get(change) as Staged, restores.get(change)));
    }
  }
  return { left, stillApplied, changedMeanwhile };
}

/** True when `entry`'s directory, opened again, is the one first opened (`before`): same real path, device and inode. */
function isFirstOpened(entry: Staged, before: Staged): boolean {
  try {
    return identityOfHeld(entry.parent) === before.directory && entry.parent.realPath === before.parent.realPath;
  } catch {
    return false;
  }
}

/** Removes `file`; already gone is done. */
function removeIfThere(file: string): void {
  try {
    unlinkSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
}

/**
 * Takes one file of a reverting change back (see {@link revertInGroups}): "done", "changed" (left
 * as another writer left it) or "unreached" (a step failed: kept in the log).
 */
function revertOne(entry: Staged, restore: string | undefined, renamed: boolean): "done" | "changed" | "unreached" {
  const { change, parent, temporary } = entry;
  let outcome: "done" | "changed" = "done";
  try {
    if (!renamed) {
      if (temporary !== undefined) removeIfThere(parent.at(temporary));
    } else if (!stillAsWritten(entry)) {
      outcome = "changed";
    } else if (restore !== undefined) {
      renameSync(parent.at(restore), parent.at(parent.name));
    } else if (change.after !== undefined) {
      removeIfThere(parent.at(parent.name));
    }
    if (restore !== undefined) removeIfThere(parent.at(restore));
  } catch {
    return "unreached";
  }
  return outcome;
}

/** The log entry a kept log names for `staged` (with its directory's identity and `restore` file). */
function keptEntry(staged: Staged, restore: string | undefined): IntentEntry {
  const { parent, temporary, directory } = staged;
  return {
    directory: parent.realPath,
    name: parent.name,
    created: [],
    ...(temporary === undefined ? {} : { temporary }),
    ...(restore === undefined ? {} : { restore }),
    ...(directory === undefined ? {} : { identity: directory }),
  };
}

/**
 * Ends a change made in groups whose renames all landed: its `restore` files go. The log first
 * names only them (`prepared`: a crash from here removes them, every file new), then each group
 * is opened again to remove them (see `removeTemporaries`), and the log ends (kept for those in a
 * directory no longer at its path, see `endLog`). Where the log cannot be rewritten it stays
 * `committed` until removed: a crash then rolls forward, which removes the `restore` files too.
 */
async function dropRestores(
  scope: FileScope,
  groups: readonly (readonly TransactionChange[])[],
  first: ReadonlyMap<TransactionChange, Staged>,
  restores: ReadonlyMap<TransactionChange, string>,
  log: IntentLog,
): Promise<void> {
  const written = [...restores.keys()];
  // Where the record cannot be rewritten, it is removed before any `restore` file goes: a crash
  // then leaves those as litter, never a committed record whose revert would find them gone.
  await log
    .withdraw(
      written.map((change) => {
        const { parent, directory } = first.get(change) as Staged;
        return {
          directory: parent.realPath,
          name: parent.name,
          created: [],
          restore: restores.get(change) as string,
          ...(directory === undefined ? {} : { identity: directory }),
        };
      }),
    )
    .catch(() => log.finish());
  const only = new Map(written.map((change) => [change, { ...(first.get(change) as Staged), temporary: undefined }]));
  const left = await removeTemporaries(
    scope,
    groups.map((group) => group.filter((change) => restores.has(change))),
    only,
    restores,
  );
  await endLog(log, left);
}

/** The directories the staged writes made on their way (each once, outermost first). */
function madeDirectories(staged: readonly Staged[]): string[] {
  const made = new Set<string>();
  for (const { change, parent } of staged)
    if (change.after !== undefined) for (const directory of parent.created) made.add(directory);
  return [...made].sort((left, right) => depthOf(left) - depthOf(right));
}

function depthOf(directory: string): number {
  return directory.split(path.sep).length;
}

/** Each change's current content, read through its staged directory (see `TransactionOptions.verify`). */
async function currentContents(
  scope: FileScope,
  changes: readonly TransactionChange[],
  staged: readonly Staged[],
): Promise<(ReadOutcome | undefined)[]> {
  const byChange = new Map(staged.map((entry) => [entry.change, entry]));
  const current: (ReadOutcome | undefined)[] = changes.map(() => undefined);
  // Synchronously, in one loop: see `inSyncSlices` (a read that fails is left `undefined`: the
  // caller reads that path alone for the exact answer).
  await inSyncSlices(changes, (change, index) => {
    const entry = byChange.get(change);
    if (entry === undefined) return;
    // A racy look (a file changed within the margin of its read) is not looked at: read at once.
    if (change.expected !== undefined && change.expectedLook !== undefined && !racy(change.expectedLook)) {
      // Proved unchanged since the plan's read (same inode, size and times, none of them racy):
      // its bytes are the plan's, one read per file instead of two.
      const now = lstatSync(entry.parent.at(entry.parent.name), { throwIfNoEntry: false });
      if (unchangedSinceRead(change.expectedLook, now)) {
        entry.existing = now as Stats;
        current[index] = { ok: true, bytes: change.expected };
        return;
      }
    }
    const read = readEntryWithStatsSync(entry.parent, change.path, scope.confined, change.expected);
    // The mode a replacement keeps is then taken from this look, not from a second one.
    entry.existing = read?.stats ?? null;
    current[index] = { ok: true, bytes: read?.bytes };
  });
  return current;
}

async function closeAll(staged: readonly Staged[]): Promise<void> {
  await Promise.all(staged.map(({ parent }) => parent.close()));
}

/**
 * Undoes a one-group transaction that failed before its commit point: removes its temporary files
 * through the held directories (wherever those were moved meanwhile), closes them, removes the
 * directories it made. Returns the log entries of the temporary files it could not remove, for
 * {@link endLog} to keep (with their directory's identity, as the grouped path's).
 */
async function rollBackStaged(scope: FileScope, staged: readonly Staged[]): Promise<IntentEntry[]> {
  const left: IntentEntry[] = [];
  for (const { parent, temporary } of staged) {
    if (temporary === undefined) continue;
    const removed = await unlink(parent.at(temporary)).then(
      () => true,
      (error: NodeJS.ErrnoException) => error.code === "ENOENT",
    );
    if (removed) continue;
    let identity: string | undefined;
    try {
      identity = identityOfHeld(parent);
    } catch {
      // Not known: the entry is then finished by path, as a log without identity is.
    }
    left.push({
      directory: parent.realPath,
      name: parent.name,
      created: [],
      temporary,
      ...(identity === undefined ? {} : { identity }),
    });
  }
  // The made directories through the held handles, by identity (see `removeMadeThroughHeld`),
  // before the handles close; by path only where that cannot be done (not Linux), and then only
  // for a held directory still at its path: after a swap, a removal by path would take a user's
  // empty directory put at the path since and leave the change's own in the moved one.
  // Deepest held directory first, each climbing through every directory the change made above it
  // (the union of all `created`): see `madeChainOf`.
  const byPath: string[] = [];
  const walked = new Set<string>();
  const { made, holding } = madeAndHolding(staged);
  for (const { parent } of holding) {
    const handle = parent.at(".");
    if (walked.has(handle)) continue;
    walked.add(handle);
    if (!removeMadeThroughHeld(parent, made) && stillAtItsPath(parent)) byPath.push(...madeChainOf(parent.realPath, made));
  }
  await closeAll(staged);
  // Together, deepest first: see `removeMadeDirectories`.
  await removeMadeDirectories(scope, byPath);
  return left;
}

/** The device and inode of a held directory, through its handle (`dev:ino`). */
function identityOfHeld(parent: ParentEntry): string {
  const stats = statSync(parent.at("."));
  return `${stats.dev}:${stats.ino}`;
}

/**
 * True when the held directory `parent` is, right now, the directory at its real path: the entry
 * at that path (not followed) is a directory of the same device and inode as the one held (asked
 * through its open descriptor), and on Linux the held one's own path (the kernel's path of the
 * descriptor, read back through `/proc/self/fd`) is that path. An ancestor moved away, or swapped
 * for another directory or for a symbolic link to the moved one, fails one or the other.
 *
 * Elsewhere (macOS, Windows) only device and inode are compared, never path strings: a real path
 * resolved there comes back in the disk's spelling (case, Unicode form), so comparing it with the
 * path as typed failed changes on a case-insensitive volume. What this does not catch there: an
 * ancestor moved away and a symbolic link to it put at its old name (the lookup of the path
 * follows it to the held directory), and, where the descriptor is not known, anything (the held
 * directory is then looked up by its path too, so it is compared with itself).
 */
function stillAtItsPath(parent: ParentEntry): boolean {
  try {
    if (!sameDirectory(heldStats(parent), lstatSync(parent.realPath))) return false;
    return !DESCRIPTOR_PATHS || heldPathOf(parent) === parent.realPath;
  } catch {
    return false;
  }
}

/**
 * True when `atPath` (an `lstat` of a path) is a directory and the same one as `held` (a `stat`
 * of a held directory through its handle): same device and inode.
 */
export function sameDirectory(held: Stats, atPath: Stats): boolean {
  return atPath.isDirectory() && atPath.dev === held.dev && atPath.ino === held.ino;
}

/** The held directory's stats through its open descriptor (`fstat`); through `at(".")` where that is not known. */
function heldStats(parent: ParentEntry): Stats {
  const fd = heldDescriptor(parent);
  return fd === undefined ? statSync(parent.at(".")) : fstatSync(fd);
}

/**
 * The held directory's path now, as the kernel has it for its descriptor (Linux: `at` names
 * entries through `/proc/self/fd/<fd>`; one `readlink`; a directory moved since has its new path
 * there, a removed one " (deleted)" after it).
 */
function heldPathOf(parent: ParentEntry): string {
  const descriptor = heldDescriptor(parent);
  if (descriptor === undefined) throw new Error("no descriptor: closed");
  return readlinkSync(`/proc/self/fd/${descriptor}`);
}

/**
 * The one-group path's last look at its directories, after its commit point (see
 * {@link lastLooks}) and before the renames: throws `DirectoryReplacedError` (tagged with the
 * first change in it) when a staged directory is no longer at its path (see
 * {@link stillAtItsPath}). Every change goes through its held directory, so without this look a
 * directory moved away (or swapped) while the temporary files were written would take the renames
 * wherever it went, and the change would report ok for files that are not at their paths.
 *
 * What it does not close: the look and the renames are separate steps, and a directory moved
 * after the look still takes the renames through its handle, the change then answering ok for
 * files that were at their paths when looked at and are in the moved directory now. The window is
 * the time from the look to the last rename: the targets' `lstat`s and the rename loop. Until
 * stop 35 the look came before the intent log's commit (a write, a flush, a rename and a
 * directory flush), which was most of that window for several files (2 files 9.4 ms median,
 * 1.1-20; 500 in 50 directories 51 ms, 12-149; ext4 at load 11 on 2 cores); one file's was a
 * single rename (82 us median, 69-295), as now for every change. Nothing on Linux renames "only
 * if this directory is still at that path".
 */
function assertStillAtPaths(staged: readonly Staged[]): void {
  // Once per handle, not per path: a change's writes and deletes open their directories apart.
  const looked = new Set<string>();
  for (const { change, parent } of staged) {
    const handle = parent.at(".");
    if (looked.has(handle)) continue;
    looked.add(handle);
    if (!stillAtItsPath(parent)) throw new FileStepError(change.path, new DirectoryReplacedError());
  }
}
