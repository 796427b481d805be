import { createHash, randomBytes } from "node:crypto";
import { constants, statSync } from "node:fs";
import { lstat, mkdir, open, readdir, readFile, realpath, rename, unlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { ToolError } from "agent-tool-catalog";
import { SandboxViolationError } from "../sandbox/sandbox-violation-error.js";
import { readSmallFileTextOrWhyNot } from "../sandbox/small-file-text.js";
import { staleLocksBroken, withFileLocks } from "./cross-process-lock.js";
import type { FileScope, ParentEntry } from "./file-scope.js";
import { ensurePrivateDirectory } from "./private-state-directory.js";
import { isProcessAlive, OWN_PROCESS } from "./process-identity.js";
import { removeMadeDirectories } from "./remove-made-directories.js";
import { writeNewFile } from "./write-new-file.js";

/** One file of a change in flight: where it is, and its temporary file when it is written. */
export interface IntentEntry {
  /** Real path of the file's directory. */
  readonly directory: string;
  /** The file's name in it. */
  readonly name: string;
  /** The temporary file (in the same directory) holding the new content; absent for a delete. */
  readonly temporary?: string;
  /** Directories made for it (real paths), removed again on rollback when empty. */
  readonly created: readonly string[];
  /**
   * The directory's device and inode (`dev:ino`) when the temporary file was written: a recovery
   * touches that directory only, not another found at its path. Set by an abandoned log, and by a
   * change made in groups (whose later groups' directories are opened again, and may be swapped).
   */
  readonly identity?: string;
  /**
   * A file (in the same directory, named like a temporary file) holding the file's content
   * before the change: written and flushed before the commit point by a change made in groups,
   * after a rename pass that failed part way by a change of one group (named in the committed
   * log before it is written, see `IntentLog.nameRestores`); absent for a file that did not exist. A change taken back after some of its renames puts it back at
   * the file's name (see `IntentState`).
   */
  readonly restore?: string;
  /**
   * In a `reverting` record: what the change put at the file's name, as the SHA-256 (hex) of its
   * new content, or `""` where it put nothing there (the file not renamed yet). A recovery takes
   * back (removes, or gives its `restore` file back) only a file whose content is that: one another
   * writer changed or created at the name since is left as it is (see {@link revertEntry}).
   * For a delete: `""` once the file was deleted, absent before (a file found at the name of a
   * delete made is another writer's, and is told). Absent (a content streamed, or a log of an
   * older version): the file is taken back unchecked.
   */
  readonly written?: string;
}

/**
 * What the log says: `prepared` rolls back (temporary files removed), `committed` rolls forward,
 * `reverting` rolls back a change some of whose renames were made (see {@link revertEntry}: each
 * renamed file gets its `restore` file back, a file the change added is removed).
 */
type IntentState = "prepared" | "committed" | "reverting";

interface IntentRecord {
  readonly owner: string;
  readonly root: string;
  readonly state: IntentState;
  readonly entries: readonly IntentEntry[];
  /**
   * Set by a change made in groups whose entries all carry their directory's identity and, for
   * each file that existed, a `restore` file: a committed log of it whose directory is found
   * swapped (or moved away) cannot be rolled forward whole, and is reverted instead.
   */
  readonly revertible?: true;
  /**
   * Left by a live process whose change failed but could not remove every temporary file (their
   * directory was moved meanwhile): any recovery rolls it back at once, owner alive or not.
   */
  readonly abandoned?: true;
}

/** The prefix of a log handed to recovery by its live owner (see `IntentLog.handOver`). */
const HANDED_OVER = "abandoned-";

/** Logs of this process handed to recovery whose marking rename was refused (see `IntentLog.handOver`). */
const handedOver = new Set<string>();

/** The pid a log's (or a kept `.next` log's) name starts with, past a hand-over's mark. */
function ownerPidOfName(name: string): number {
  return Number((name.startsWith(HANDED_OVER) ? name.slice(HANDED_OVER.length) : name).split("-")[0]);
}

/** A log larger than this is not read (not one this package wrote whole). */
export const MAX_LOG_BYTES = 64 * 1024 * 1024;

/**
 * The text of log `file`, read through one descriptor opened without following a link and without
 * blocking (a named pipe in a log's place blocked the recovery, and every file operation of the
 * workspace waiting for it, for ever): `"absent"`, or `"unreadable"` for anything but a regular
 * file of at most {@link MAX_LOG_BYTES} (then nothing this package wrote, and left as it is) or a
 * read error (a full descriptor table: the log is not taken for a cut-short one and removed).
 */
export function readLogText(file: string): string | "absent" | "unreadable" {
  return readSmallFileTextOrWhyNot(file, MAX_LOG_BYTES);
}

/**
 * Whether `name` in an intent directory is a leftover no replay needs: a `.next` file (a kept or
 * replacing log whose rename a crash prevented: the log it was to replace is still whole) or a
 * `.json` log that cannot be parsed (cut short while its prepared record was written, before any
 * temporary file existed). `undefined` when it is neither; else the owner to judge, `pid:?` from
 * the name (the namespace cannot be told from it).
 */
export function leftoverOwner(directory: string, name: string): string | undefined {
  if (name.endsWith(".next")) return `${ownerPidOfName(name)}:?`;
  if (!name.endsWith(".json") || readRecord(path.join(directory, name)) !== "unparsable") return undefined;
  return `${ownerPidOfName(name)}:?`;
}

/**
 * Removes, under the workspace's recovery lock, the leftovers (see {@link leftoverOwner}) of
 * intent directory `directory` whose owner `isDead` says is dead, as a recovery of the workspace
 * removes them, but without needing the workspace (the sweep does not know it: only a parsed log
 * names it). Nothing is replayed. Returns how many were removed.
 */
export function removeDeadLeftovers(directory: string, isDead: DeadOwnerJudge): Promise<number> {
  return withFileLocks([`recovery:${directory}`], async () => {
    let removed = 0;
    for (const name of await readdir(directory).catch(() => [] as string[])) {
      const owner = leftoverOwner(directory, name);
      const file = path.join(directory, name);
      if (owner === undefined || !isDead(owner, file)) continue;
      await unlink(file).then(
        () => removed++,
        () => undefined,
      );
    }
    return removed;
  });
}

/** The per-user state directory: `AGENT_TOOL_CATALOG_STATE_DIR`, else one in the temporary directory. */
function stateBase(): string {
  const uid = typeof process.geteuid === "function" ? process.geteuid() : "user";
  return process.env.AGENT_TOOL_CATALOG_STATE_DIR ?? path.join(tmpdir(), `agent-tool-catalog-${uid}`);
}

/** The directory holding every workspace's intent directory (see {@link intentDirectory}). */
export function intentsRoot(): string {
  return path.join(stateBase(), "intents");
}

/** Where intents of a workspace are logged: per user, per workspace path (give the real path). */
export function intentDirectory(root: string): string {
  return path.join(intentsRoot(), createHash("sha256").update(root).digest("hex").slice(0, 32));
}

/**
 * The intent directory of the workspace's real path (every spelling of it, a symlink or `..`,
 * shares one log), made and checked private first: logs planted by another user are never replayed.
 */
async function workspaceIntents(root: string): Promise<string> {
  const directory = intentDirectory(await realpath(root).catch(() => root));
  await ensurePrivateDirectory(stateBase(), directory);
  return directory;
}

/**
 * A failure of the state directory's file system while a change is logged, as the model's error:
 * it names the change log's directory, not the file being changed. Mapped by the file's path, a
 * read-only state directory said `"a.txt" is on a read-only file system` of a workspace that is
 * writable, and a full one `no space ... while writing "a.txt"`. Nothing was changed (the caller says so): a change
 * whose log cannot be prepared or committed is rolled back (see `applyFileChanges`).
 */
function changeLogDirectoryError(error: unknown): unknown {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === "ENOSPC" || code === "EDQUOT") {
    return new ToolError(
      "no_space",
      "No space is left for the change log (the catalog's state directory, by default in the temporary directory).",
      { hint: "Ask the user to free disk space there." },
    );
  }
  if (code === "EROFS") {
    return new ToolError(
      "read_only_file_system",
      "The change log's directory (the catalog's state directory, by default in the temporary directory) is on a read-only file system; the workspace itself may be writable.",
      {
        hint: "Ask the user to make the temporary directory writable, or to set AGENT_TOOL_CATALOG_STATE_DIR to a writable one.",
      },
    );
  }
  return error;
}

async function syncPath(target: string, flags: number): Promise<void> {
  const handle = await open(target, flags).catch(() => undefined);
  if (handle === undefined) return;
  await handle.sync().catch(() => undefined);
  await handle.close().catch(() => undefined);
}

/** True for a committed record with deletes: replaying it again after newer writes would lose them. */
function hasDeletes(record: IntentRecord): boolean {
  if (record.state === "reverting") return true;
  return record.state === "committed" && record.entries.some((entry) => entry.temporary === undefined);
}

/** Flushes the directory holding a log file, so the log's removal survives power loss. */
function syncIntentDirectory(file: string): Promise<void> {
  return syncPath(path.dirname(file), constants.O_RDONLY | (constants.O_DIRECTORY ?? 0));
}

/**
 * The intent log of one change over files. Before any temporary file exists the change is logged
 * as `prepared` (a crash now leaves temporary files that the next open removes); once every
 * temporary file is written and flushed it is logged durably as `committed` (a crash now is rolled
 * forward: the remaining renames and deletes are done); when the change is on disk the log goes.
 */
export class IntentLog {
  private constructor(
    private file: string,
    private record: IntentRecord,
  ) {}

  /** Logs a prepared change (not flushed: a crash that loses it also loses its temporary files' names, but only power loss does). */
  static async prepare(root: string, entries: readonly IntentEntry[], revertible = false): Promise<IntentLog> {
    try {
      return await IntentLog.write(root, entries, revertible);
    } catch (error) {
      throw changeLogDirectoryError(error);
    }
  }

  private static async write(root: string, entries: readonly IntentEntry[], revertible: boolean): Promise<IntentLog> {
    const directory = await workspaceIntents(root);
    await mkdir(directory, { recursive: true, mode: 0o700 });
    const file = path.join(directory, `${process.pid}-${randomBytes(6).toString("hex")}.json`);
    const record: IntentRecord = { owner: OWN_PROCESS, root, state: "prepared", entries, ...(revertible ? { revertible } : {}) };
    const create = () => writeFile(file, JSON.stringify(record), { mode: 0o600 });
    await create()
      .catch(async (error: unknown) => {
        // The directory was empty, and another process's sweep (see `lock-sweep.ts`) removed it
        // between the mkdir and this write: made again, once.
        if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
        await mkdir(directory, { recursive: true, mode: 0o700 });
        await create();
      })
      .catch(async (error: unknown) => {
        // A full disk makes the file and refuses its bytes: an empty log of a live process counts
        // as another's change in flight for every other process, whose recovery then runs again at
        // each file operation.
        await unlink(file).catch(() => undefined);
        throw error;
      });
    return new IntentLog(file, record);
  }

  /**
   * Marks the change committed, durably (write, flush and close a new record, rename it over the
   * log, flush the directory). Any failure up to the rename removes the new record and throws:
   * the log still says `prepared`, as the change then is (the caller rolls it back).
   */
  async commit(): Promise<void> {
    await this.replaceRecord({ ...this.record, state: "committed" }).catch((error: unknown) => {
      throw changeLogDirectoryError(error);
    });
  }

  /** True when the log may be reverted after some renames (see `IntentRecord.revertible`). */
  get revertible(): boolean {
    return this.record.revertible === true;
  }

  /**
   * Turns a committed change some of whose renames were made into one to take back, durably,
   * before any file is put back: from here a crash is rolled back by the next recovery (every
   * renamed file gets its `restore` file back, every added one is removed, every temporary file
   * goes), as the caller then does itself. Throws when it cannot be written (the log still says
   * `committed`). `entries`: the log's, each with what the change put at its name (`written`).
   */
  async revert(entries: readonly IntentEntry[] = this.record.entries): Promise<void> {
    await this.replaceRecord({ ...this.record, state: "reverting", entries });
  }

  /**
   * Names, durably, the `restore` files a committed change is about to write after a rename pass
   * that failed part way (see `IntentEntry.restore`; the state stays `committed`): before they
   * exist, so that a crash from here leaves no litter (a roll-forward removes them, every file
   * new), and before {@link revert} (which must find them written). Throws when it cannot be
   * written (the log is then as before).
   */
  async nameRestores(entries: readonly IntentEntry[]): Promise<void> {
    await this.replaceRecord({ ...this.record, entries });
  }

  /**
   * Takes a committed change back, durably, before any of its renames or deletes: the log says
   * `prepared` again (same entries), so from here a crash rolls the change back, as before its
   * commit. The caller then removes its temporary files, and only then: a temporary file removed
   * under a log that still says `committed` would leave a crash's roll-forward renaming the others
   * only (some files new, some old). Throws when it cannot be written (the log is then still
   * committed: see `applyFileChanges`). `entries`: those still to undo (default: all), where some
   * were renamed already (a rename that failed part way): a crash then leaves those as renamed.
   */
  async withdraw(entries: readonly IntentEntry[] = this.record.entries): Promise<void> {
    await this.replaceRecord({ ...this.record, state: "prepared", entries });
  }

  /**
   * Removes the log and flushes its directory, throwing when the removal fails (unlike `finish`).
   * The fallback where a committed change must be taken back and `withdraw` cannot be written (a
   * full disk refuses the new record; a removal needs no space): with no log, a crash leaves the
   * temporary files as litter, never a roll-forward over files the caller then tells unchanged.
   */
  async drop(): Promise<void> {
    await unlink(this.file);
    await syncIntentDirectory(this.file);
  }

  /**
   * Whether the log is no longer on disk (removed, by `drop` or otherwise). A `drop` whose
   * removal was made but whose directory flush failed has still taken the change back from any
   * recovery that follows a process's crash (only a power loss could bring the log back): the
   * caller must then not go on as if it were committed, renaming with no log behind it.
   */
  async isGone(): Promise<boolean> {
    try {
      await lstat(this.file);
      return false;
    } catch (error) {
      return (error as NodeJS.ErrnoException).code === "ENOENT";
    }
  }

  /**
   * Ends a change that failed, undone but for the temporary files of `entries` that could not be
   * removed (their directory was moved or replaced meanwhile): the log is replaced, durably, by a
   * prepared one naming only those, marked abandoned, so that the next recovery of the workspace
   * (in any process) removes each once its directory (by device and inode) is at its path again,
   * and keeps the log while another directory is there. Throws when it cannot be written (the log
   * is then as before, for the caller to remove).
   */
  async abandon(entries: readonly IntentEntry[]): Promise<void> {
    // A change being reverted stays so: its entries left are files to put back, not only temporary files.
    const state = this.record.state === "reverting" ? "reverting" : "prepared";
    await this.replaceRecord({ ...this.record, state, entries, abandoned: true });
  }

  /**
   * Replaces the log by `record`, durably: a new file written and flushed, renamed over the log,
   * the directory flushed. A failure up to the rename removes the new file and throws, the log as before.
   */
  private async replaceRecord(record: IntentRecord): Promise<void> {
    const next = `${this.file}.next`;
    try {
      await writeNewFile(next, JSON.stringify(record), {
        flags: constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC,
        mode: 0o600,
        sync: true,
      });
      await rename(next, this.file);
    } catch (error) {
      await unlink(next).catch(() => undefined);
      throw error;
    }
    this.record = record;
    await syncIntentDirectory(this.file);
  }

  /**
   * Hands a committed change that could neither be completed nor taken back (its rename pass
   * failed part way, and the failure's own steps were refused) to the workspace's recovery, as if
   * this process had been killed there: the log stays `committed`, naming every temporary file,
   * so a recovery rolls it forward (every file new), and it is marked so that any recovery,
   * this process's next one included, replays it at once rather than waiting for its owner to end
   * (a log left to a live owner was rolled forward only once the process ended, over whatever was
   * written since). The mark is a rename of the log (`abandoned-<name>`: it needs no space, and a
   * full disk refuses every new record); where even that is refused (a read-only state directory)
   * it is kept in this process, which is then the only one that replays the log before it ends.
   */
  async handOver(): Promise<void> {
    const marked = path.join(path.dirname(this.file), `${HANDED_OVER}${path.basename(this.file)}`);
    try {
      await rename(this.file, marked);
    } catch {
      handedOver.add(this.file);
      return;
    }
    this.file = marked;
    await syncIntentDirectory(marked);
  }

  /** True when removing this log must be flushed (see `finish`): committed, with deletes. */
  get removalMustBeFlushed(): boolean {
    return hasDeletes(this.record);
  }

  /**
   * Removes the log: the change is fully on disk or fully undone. A committed log that deletes
   * files has its removal flushed too: otherwise power loss could bring the log back, and its
   * replay would delete again a file that a later change created under the same name.
   */
  async finish(): Promise<void> {
    await unlink(this.file).catch(() => undefined);
    if (this.removalMustBeFlushed) await syncIntentDirectory(this.file);
  }
}

/**
 * Per workspace root and confinement: the recovery done (or running) in this process, the lock
 * breaks it saw, and when to look for other processes' logs again. A confined recovery leaves the
 * entries of a log outside the workspace (written by an `unrestricted` run) for an unconfined
 * one, so one of each runs in a process.
 */
const recovered = new Map<string, { readonly done: Promise<void>; readonly breaks: number; readonly lookAgainAt: number }>();
const recoveryKey = (scope: FileScope) => `${scope.confined ? "confined" : "host"}\u0000${scope.root}`;

/**
 * How often (ms) a process that recovered a workspace looks at its log directory again. Another
 * process killed mid-change since leaves its log and temporary files; looked at only once, they
 * stayed (its partial temporary files seen by grep and glob, a committed change's files half old
 * and half new to reads) until a new process started or someone took a lock the dead one held.
 */
const LOOK_AGAIN_MS = 1000;

/**
 * Finishes the changes that crashed processes left in this workspace: committed ones are rolled
 * forward, prepared ones rolled back; their temporary files are removed. Every file operation of a
 * scope waits for it (see `scopeFromLocator`), so it runs on the first use of the workspace by any
 * file tool in a process, reads included. It runs once per workspace and process, and again when
 * a log was left alone because its owner still ran (that owner may have crashed since), when
 * this process broke the lock of a dead holder since (that holder's change must be on disk before
 * the file is touched again, or a later recovery would roll it over the newer write), and when a
 * look at the log directory, at most once a second, finds a log of another process. `scope` must
 * be one whose `openParent` and `removeDirectory` do not wait for it.
 */
export function recoverWorkspace(scope: FileScope): Promise<void> {
  const breaks = staleLocksBroken();
  const key = recoveryKey(scope);
  const known = recovered.get(key);
  if (known === undefined || known.breaks !== breaks) return startRecovery(scope, key, breaks, Promise.resolve(true));
  if (performance.now() < known.lookAgainAt) return known.done;
  return startRecovery(
    scope,
    key,
    breaks,
    known.done.then(() => hasLogsOfOthers(scope.root)),
  );
}

/** Recovers once `needed` says so, recorded as this process's recovery of the workspace. */
function startRecovery(scope: FileScope, key: string, breaks: number, needed: Promise<boolean>): Promise<void> {
  const entry = {
    breaks,
    lookAgainAt: performance.now() + LOOK_AGAIN_MS,
    done: needed
      .then((run) => (run ? recoverNow(scope) : 0))
      .then(
        (pending) => {
          if (pending > 0 && recovered.get(key) === entry) recovered.delete(key);
        },
        (error: unknown) => {
          if (recovered.get(key) === entry) recovered.delete(key);
          // Other failures leave the workspace usable as before; this one may not (see `replayAndRemove`).
          if (error instanceof RecoveryIncompleteError) throw error;
        },
      ),
  };
  recovered.set(key, entry);
  return entry.done;
}

/** True when the workspace's log directory holds a log (or a kept `.next` log) of another process. */
async function hasLogsOfOthers(root: string): Promise<boolean> {
  const directory = intentDirectory(await realpath(root).catch(() => root));
  const names = await readdir(directory).catch(() => [] as string[]);
  if (names.some((name) => !name.startsWith(`${process.pid}-`))) return true;
  return [...handedOver].some((file) => path.dirname(file) === directory);
}

/**
 * Recovers now, whatever was done before in this process (tests call it after a crash). Returns
 * how many logs were left alone because their owner runs. Recoveries of one workspace are
 * serialized across processes by a lock of their own, so a log is replayed by one process only
 * and never after the files it names were written again.
 */
export async function recoverNow(scope: FileScope): Promise<number> {
  const directory = await workspaceIntents(scope.root);
  return withFileLocks([`recovery:${directory}`], () => recoverLocked(scope, directory, onDemandJudge));
}

/**
 * Whether a log (or a kept `.next` log, or one that cannot be parsed) may be treated as its dead
 * owner's: `owner` is the record's `pid:start[:namespace]`, or `pid:?` where only the file's name
 * says the pid; `file` is the log's path.
 */
export type DeadOwnerJudge = (owner: string, file: string) => boolean;

/** The on-demand recovery's judge: the owner is dead by pid and start time (see `isProcessAlive`). */
const onDemandJudge: DeadOwnerJudge = (owner) => !isProcessAlive(owner);

/**
 * Recovers the intent directory `directory` of the workspace `scope` (its real path's) as
 * {@link recoverNow} does, under the same recovery lock, replaying and removing the same way,
 * but treating as dead only the owners `isDead` says are (the sweep's stricter judge, see
 * `lock-sweep.ts`); every other log is left as it is. Returns how many logs were left.
 */
export function recoverDeadLogs(scope: FileScope, directory: string, isDead: DeadOwnerJudge): Promise<number> {
  return withFileLocks([`recovery:${directory}`], () => recoverLocked(scope, directory, isDead));
}

/** The record of log `file`; `"unparsable"` for a regular file that does not parse; undefined when gone or not a regular file. */
function readRecord(file: string): IntentRecord | "unparsable" | undefined {
  const text = readLogText(file);
  if (text === "absent" || text === "unreadable") return undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    // `null` or a number parses, and is no record either (its fields were read, and threw).
    return typeof parsed === "object" && parsed !== null ? (parsed as IntentRecord) : "unparsable";
  } catch {
    return "unparsable";
  }
}

async function recoverLocked(scope: FileScope, directory: string, isDead: DeadOwnerJudge): Promise<number> {
  const names = await readdir(directory).catch(() => [] as string[]);
  let pending = 0;
  for (const name of names) {
    const file = path.join(directory, name);
    if (name.endsWith(".next")) {
      if (isDead(`${ownerPidOfName(name)}:?`, file)) await unlink(file).catch(() => undefined);
      continue;
    }
    if (!name.endsWith(".json")) continue;
    const record = readRecord(file);
    // Gone (replayed by an earlier recovery), or not a log this package wrote: left as it is.
    if (record === undefined) continue;
    if (record === "unparsable") {
      // Cut short by a crash while the prepared record was written (no temporary file exists
      // yet), or already replayed and removed by an earlier recovery.
      const owner = ownerPidOfName(name);
      if (isDead(`${owner}:?`, file)) await unlink(file).catch(() => undefined);
      else if (owner !== process.pid) pending++;
      continue;
    }
    const handed = name.startsWith(HANDED_OVER) || handedOver.has(file);
    if (record.abandoned !== true && !handed && !isDead(String(record.owner), file)) {
      // Another process's change in flight (this process's own need no second look).
      if (record.owner !== OWN_PROCESS) pending++;
      continue;
    }
    await replayAndRemove(scope, file, record);
    handedOver.delete(file);
  }
  return pending;
}

/**
 * A log of a dead owner that must be replayed before the workspace's files are used again could not
 * be (its kept part could not be written), or a replayed one could not be removed: every change of
 * the workspace fails with it until a recovery succeeds, as a file written meanwhile would be
 * undone by that later replay.
 */
class RecoveryIncompleteError extends Error {
  constructor(cause: unknown) {
    super(
      `the crash recovery of this workspace could not complete (${recoveryFailureReason(cause)}); ` +
        "its files can be read, and changed again once the recovery can complete",
      { cause },
    );
    this.name = "RecoveryIncompleteError";
  }
}

/** What stopped the recovery, in words the model and the operator can act on (not a guess). */
function recoveryFailureReason(cause: unknown): string {
  const code = (cause as { code?: unknown } | undefined)?.code;
  if (code === "ENOSPC" || code === "EDQUOT") return "the disk is full";
  if (code === "EROFS") return "its state directory is on a read-only file system";
  if (code === "EACCES" || code === "EPERM") return "its state directory cannot be written";
  if (typeof code === "string") return `its state directory could not be written: ${code}`;
  return cause instanceof Error ? cause.message : "its log could not be kept";
}

/**
 * Waits for the workspace's recovery before a read. A recovery that could not complete blocks the
 * workspace's changes (a file written meanwhile would be undone by the later replay) but not its
 * reads: they change nothing, and a workspace whose state directory cannot be written (read-only,
 * full) would otherwise be unreadable for good. Other recovery failures never block anything.
 */
export async function recoverWorkspaceForReading(scope: FileScope): Promise<void> {
  await recoverWorkspace(scope).catch((error: unknown) => {
    if (!(error instanceof RecoveryIncompleteError)) throw error;
  });
}

/**
 * Replays a dead owner's log, then removes it, or keeps what this scope could not reach.
 *
 * The log kept must never name an entry already done: a later recovery replaying a done delete
 * (or rename) would undo a file written since. So the kept log is written durably (as
 * `<log>.next`) BEFORE any entry is replayed, and renamed over the log after; if it cannot be
 * written (a full disk) nothing is replayed and the recovery throws, as it does if the rename
 * fails or a fully replayed log cannot be removed: every change of the workspace waits for a
 * recovery that succeeds, so no file is written while the whole log stays, and the next attempt
 * replays it from the start. A crash
 * between write and rename leaves the whole log and a `.next` file of a dead owner (removed by the
 * next recovery, which replays the whole log before any file is written again).
 */
async function replayAndRemove(scope: FileScope, file: string, found: IntentRecord): Promise<void> {
  const { refused: unreached, moved } = await unreachable(scope, found);
  // A committed change made in groups whose directory was swapped or moved away cannot be rolled
  // forward whole (its temporary files there are out of reach): it is taken back, every file as
  // before, rather than left with some files new and the rest old.
  const record: IntentRecord =
    found.state === "committed" && found.revertible === true && moved ? { ...found, state: "reverting" } : found;
  // Nothing this scope can do: the log stays whole for a recovery that can (nothing was replayed,
  // so that one may still decide either way).
  if (unreached.length > 0 && unreached.length === record.entries.length) return;
  const next = `${file}.next`;
  if (unreached.length > 0)
    await writeKept(next, { ...record, entries: unreached }).catch((error: unknown) => {
      throw new RecoveryIncompleteError(error);
    });
  let refused: IntentEntry[];
  try {
    refused = await replay(scope, record, unreached);
  } catch (error) {
    // A failed step (a flush refused) fails this recovery only, not the file operations waiting for it.
    await unlink(next).catch(() => undefined);
    // A rename refused (see `StuckRenameError`): the whole log stays, and the workspace's changes wait.
    if (error instanceof StuckRenameError) throw new RecoveryIncompleteError(error);
    throw error;
  }
  try {
    // Refused now but reachable a moment ago (the tree changed meanwhile): the kept log does not
    // name it, so the whole log stays and the recovery fails, to be tried again.
    if (refused.length > unreached.length) throw new Error("an entry of the log became unreachable while it was replayed");
    if (unreached.length > 0) await rename(next, file);
  } catch (error) {
    await unlink(next).catch(() => undefined);
    throw new RecoveryIncompleteError(error);
  }
  // A replayed log that stays (its directory immutable or read-only) would be replayed again by
  // every later recovery, its deletes and renames over files written since: the same rule as a
  // kept log that cannot be written. ENOENT: another recovery removed it already.
  if (unreached.length === 0)
    await unlink(file).catch((error: unknown) => {
      if ((error as { code?: unknown }).code !== "ENOENT") throw new RecoveryIncompleteError(error);
    });
  // A flush refused here (`syncPath` ignores it) leaves a removal that only power loss can undo,
  // the risk `finish` takes too; blocking the workspace's changes for it would lock out for good a
  // file system that refuses directory flushes.
  if (unreached.length > 0 || hasDeletes(record)) await syncIntentDirectory(file);
}

/**
 * The entries of the record that this scope may not reach (refused by the workspace confinement),
 * and those whose recorded directory is not the one at their path now (see `isSameDirectory`) or
 * is away from it (see `isAwayFromItsPath`).
 */
async function unreachable(scope: FileScope, record: IntentRecord): Promise<{ refused: IntentEntry[]; moved: boolean }> {
  const refused: IntentEntry[] = [];
  // Any entry whose directory is not the one recorded (swapped, or away from its path).
  let moved = false;
  for (const entry of record.entries) {
    const parent = await scope
      .openParent(path.join(entry.directory, entry.name), { follow: false, mutate: false })
      .catch((error: unknown) => {
        const away = isAwayFromItsPath(error, entry);
        moved ||= away;
        if (error instanceof SandboxViolationError || away) refused.push(entry);
        return undefined;
      });
    if (parent !== undefined && !isSameDirectory(parent, entry)) {
      moved = true;
      refused.push(entry);
    }
    await parent?.close();
  }
  return { refused, moved };
}

/**
 * True when `entry` names its directory's identity (see `IntentEntry.identity`: an abandoned
 * change's temporary file) and nothing, or no directory, is at its path now (ENOENT, ENOTDIR): the
 * directory was moved away, its temporary file with it, and may come back. Its entry is kept, as
 * when another directory is at its path; for an entry without identity a missing directory means
 * there is nothing left to finish.
 */
function isAwayFromItsPath(error: unknown, entry: IntentEntry): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  return entry.identity !== undefined && (code === "ENOENT" || code === "ENOTDIR");
}

/**
 * False when `entry` names its directory's identity (see `IntentEntry.identity`) and another
 * directory is at its path now: its temporary file is in the one moved away, and the name could
 * be another file's there.
 */
function isSameDirectory(parent: ParentEntry, entry: IntentEntry): boolean {
  if (entry.identity === undefined) return true;
  try {
    const stats = statSync(parent.at("."));
    return `${stats.dev}:${stats.ino}` === entry.identity;
  } catch {
    return false;
  }
}

/**
 * Writes the log of the entries this recovery cannot reach (outside a confined workspace: a change
 * an `unrestricted` run made) to `next`, durably, as `commit` writes a record; it replaces the log
 * once the others are done. Deleting the log instead would leave them undone for good: a later
 * unconfined recovery would find no log. Throws when it cannot be written (nothing is left of it).
 */
async function writeKept(next: string, record: IntentRecord): Promise<void> {
  try {
    await writeNewFile(next, JSON.stringify(record), {
      flags: constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC,
      mode: 0o600,
      sync: true,
    });
  } catch (error) {
    await unlink(next).catch(() => undefined);
    throw error;
  }
}

/**
 * Rolls the record's entries forward or back; returns those this scope may not reach (refused by
 * the workspace confinement), left for a recovery in a scope that can: `skipped` (found so before,
 * not tried) and any refused now. An entry whose directory is gone is done with (there is nothing
 * left to finish), unless the entry is an abandoned change's (see `isAwayFromItsPath`).
 */
async function replay(scope: FileScope, record: IntentRecord, skipped: readonly IntentEntry[]): Promise<IntentEntry[]> {
  const unreached: IntentEntry[] = [...skipped];
  // Renames of a roll-forward refused with the temporary file still there (see `StuckRenameError`).
  const stuck: string[] = [];
  for (const entry of record.entries) {
    if (skipped.includes(entry)) continue;
    const parent = await scope
      .openParent(path.join(entry.directory, entry.name), { follow: false, mutate: false })
      .catch((error: unknown) => {
        if (error instanceof SandboxViolationError || isAwayFromItsPath(error, entry)) unreached.push(entry);
        return undefined;
      });
    if (parent === undefined) continue;
    try {
      // Moved away since `unreachable` looked (rare): its temporary file is left, as a crash
      // between the two looks would leave it.
      if (!isSameDirectory(parent, entry)) continue;
      if (record.state === "committed") {
        if (entry.temporary === undefined) await unlink(parent.at(entry.name)).catch(() => undefined);
        else
          await rename(parent.at(entry.temporary), parent.at(entry.name)).catch(async (error: NodeJS.ErrnoException) => {
            if (!GIVEN_UP_RENAMES.has(error.code ?? ""))
              stuck.push(`"${path.join(entry.directory, entry.name)}" (${error.code})`);
            // Another writer's directory at the name: the new content can never land, and goes.
            else if (error.code !== "ENOENT") await unlink(parent.at(entry.temporary as string)).catch(() => undefined);
          });
        if (entry.restore !== undefined) await unlink(parent.at(entry.restore)).catch(() => undefined);
        await parent.sync();
      } else if (record.state === "reverting") {
        await revertEntry(parent, entry);
        await parent.sync();
      } else {
        if (entry.temporary !== undefined) await unlink(parent.at(entry.temporary)).catch(() => undefined);
        if (entry.restore !== undefined) await unlink(parent.at(entry.restore)).catch(() => undefined);
      }
    } finally {
      await parent.close();
    }
  }
  if (stuck.length > 0) throw new StuckRenameError(stuck);
  // After every temporary file is gone, all entries' directories together: see `removeMadeDirectories`.
  if (record.state !== "committed") {
    await removeMadeDirectories(
      scope,
      record.entries.filter((entry) => !unreached.includes(entry)).flatMap((entry) => entry.created),
    );
  }
  return unreached;
}

/**
 * The failures of a roll-forward's rename that end the entry rather than keep the log: the
 * temporary file or its directory is gone (ENOENT: renamed already, or nothing left to finish),
 * or another writer put a directory at the name since (its temporary file is then removed).
 */
const GIVEN_UP_RENAMES = new Set(["ENOENT", "ENOTDIR", "EISDIR", "ENOTEMPTY", "EEXIST"]);

/**
 * A roll-forward whose rename of a file was refused (EPERM on an immutable file, EIO, a full
 * disk): the others were made, and the whole log stays, so that the change is finished once the
 * file can be renamed (a renamed entry replayed again is a no-op: its temporary file is gone).
 * Dropping the log, as until stop 50, left the change half made for good: some files new, this
 * one old, its new content as litter beside it. The workspace's changes wait for that recovery
 * (see `RecoveryIncompleteError`); its reads do not.
 */
class StuckRenameError extends Error {
  constructor(files: readonly string[]) {
    super(`${files.join(", ")} could not be given the new content of a change a crash cut short`);
    this.name = "StuckRenameError";
  }
}

/** True when `entry` (a name in the held directory) exists, of any kind. */
async function present(parent: ParentEntry, name: string): Promise<boolean> {
  return lstat(parent.at(name)).then(
    () => true,
    () => false,
  );
}

/**
 * Takes one entry of a `reverting` log back, whichever of its steps were made (a replay may run
 * after another, or after the owner's own revert was cut short): a temporary file still there was
 * never renamed (it goes, and the `restore` file, the file being as before); a delete not made
 * leaves the file (the `restore` file goes); otherwise the file was renamed over or deleted, and its
 * `restore` file is put back at its name, or, for a file the change added (no `restore`), the
 * name is removed. A `restore` file already gone was put back before (its rename is not retried).
 */
async function revertEntry(parent: ParentEntry, entry: IntentEntry): Promise<void> {
  const { temporary, restore, name } = entry;
  const drop = (file: string | undefined) => (file === undefined ? undefined : unlink(parent.at(file)).catch(() => undefined));
  if (temporary !== undefined && (await present(parent, temporary))) {
    await drop(temporary);
    await drop(restore);
    return;
  }
  if (temporary === undefined && restore !== undefined && (await present(parent, name))) {
    // A delete made (`written: ""`) whose name holds a file again: another writer created it
    // after the crash. It is left as it is, and told, where the change would have put the old
    // content back (its `restore` file still there); before, it was left untold.
    if (entry.written === "" && (await present(parent, restore))) foreignLeftAlone(entry);
    await drop(restore);
    return;
  }
  // Only what the change itself put at the name is taken back: a file another writer wrote or
  // created there since the crash is left as it is (its `restore` file goes, as the owner's own
  // revert does: see `revertOne`), and told.
  if (temporary !== undefined && !(await isOwnWrite(parent, entry))) {
    // Told where the change would have taken it back: an added name, or one whose `restore` file
    // is still to put back (not for a file the change never renamed, which is not its to touch).
    const pending = restore === undefined || (entry.written !== "" && (await present(parent, restore)));
    if (pending && (await present(parent, name))) foreignLeftAlone(entry);
    await drop(restore);
    return;
  }
  if (restore !== undefined) await rename(parent.at(restore), parent.at(name)).catch(() => undefined);
  else if (temporary !== undefined) await drop(name);
}

/**
 * True when the file at `entry`'s name is what its change put there (see `IntentEntry.written`:
 * the SHA-256 of its content; unchecked where the log has none). A name holding nothing is not:
 * there is nothing of the change's to take back (a renamed file put back already, or removed).
 */
async function isOwnWrite(parent: ParentEntry, entry: IntentEntry): Promise<boolean> {
  if (entry.written === undefined) return true;
  if (entry.written === "") return false;
  const stats = await lstat(parent.at(entry.name)).catch(() => undefined);
  if (stats === undefined || !stats.isFile()) return false;
  const bytes = await readFile(parent.at(entry.name)).catch(() => undefined);
  return bytes !== undefined && writtenDigest(bytes) === entry.written;
}

/** The digest `IntentEntry.written` names (SHA-256, hex): what a change wrote, and what recovery compares it with. */
export function writtenDigest(content: string | Uint8Array): string {
  return createHash("sha256").update(content).digest("hex");
}

/**
 * Tells (a process warning: a recovery has no caller to answer) that a recovery left a file as
 * another writer left it rather than take back a change cut short by a crash.
 */
function foreignLeftAlone(entry: IntentEntry): void {
  const at = path.join(entry.directory, entry.name);
  process.emitWarning(
    `"${at}" was changed by another writer after a crash cut a change short: the recovery left it as that writer left it` +
      (entry.restore === undefined ? "." : ", and did not put its content from before the change back."),
    { code: "ATC_RECOVERY_LEFT_FOREIGN_FILE" },
  );
}
