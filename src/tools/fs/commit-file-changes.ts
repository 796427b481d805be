import { ToolError } from "agent-tool-catalog";
import { withFileLocks } from "./cross-process-lock.js";
import type { EditJournal, JournalEntry, JournaledFile } from "./edit-journal.js";
import { EDIT_MAX_BYTES, readForEdit } from "./edit-size-limit.js";
import { toFileToolError, toldUnchanged, withoutChangeClaims } from "./file-errors.js";
import type { FileScope, ParentEntry } from "./file-scope.js";
import { AppliedDespiteLookError, applyFileChanges, FileStepError, TransactionError } from "./file-transaction.js";
import { ABSENT_FILE_VERSION, fileVersion } from "./file-version.js";
import { recoverWorkspace } from "./intent-log.js";
import { isBatchScope, type ReadOutcome, readManyOf } from "./parent-batch.js";
import { PiecedBytes } from "./patch/pieced-bytes.js";
import type { ReadLook } from "./read-look.js";

/** One planned change: the content it was planned against and the content to leave. */
export interface PlannedFileChange {
  /** The path as the scope takes it (as the model gave it, or the absolute path undo kept). */
  readonly path: string;
  /** The path as messages show it. @defaultValue `path` */
  readonly displayPath?: string;
  /** The content the plan saw (`undefined`: the file did not exist). */
  readonly before: Buffer | undefined;
  /**
   * The content to leave (`undefined`: delete the file): bytes, or a patched file's pieces, written
   * as they are (see `PiecedBytes`).
   */
  readonly after: Buffer | PiecedBytes | undefined;
  /** `scope.lockKey(path)` when already known (a batched read found it); else it is resolved. */
  readonly lockKey?: string;
  /** How the file looked when `before` was read from it, when known (see `unchangedSinceRead`). */
  readonly beforeLook?: ReadLook;
}

/** Reads a file's current content, or `undefined` when there is none; `too_large` over {@link EDIT_MAX_BYTES}. */
export async function readIfPresent(scope: FileScope, requested: string): Promise<Buffer | undefined> {
  try {
    // Over the edit limit, refused on its size: never read whole (a 1 TiB sparse file).
    return await readForEdit(scope, requested);
  } catch (error) {
    // Removed between the stat and the read: absent.
    if (error instanceof ToolError && (error.code === "file_not_found" || error.code === "not_a_directory")) return undefined;
    throw error;
  }
}

/** The version token of content that may be absent. */
export function versionOf(content: Buffer | PiecedBytes | undefined): string {
  if (content === undefined) return ABSENT_FILE_VERSION;
  // Hashed at once: the transient buffer is reused by the next content.
  return fileVersion(content instanceof PiecedBytes ? content.transient() : content);
}

/**
 * True when two contents (`undefined`: absent) are the same bytes: what equal versions mean,
 * compared directly (no hash of either).
 */
function sameContent(left: Buffer | undefined, right: Buffer | PiecedBytes | undefined): boolean {
  if (left === undefined || right === undefined) return left === right;
  return right instanceof PiecedBytes ? right.equals(left) : left.equals(right);
}

/** Options of {@link commitFileChanges}. */
export interface CommitOptions {
  /**
   * Plans the change again on the files as they are now, under the locks. Given when the caller
   * did not pin a version (no `expected_version`): a file that changed since the plan is then
   * re-planned rather than refused. Without it such a change is a `version_conflict`.
   */
  readonly replan?: () => Promise<readonly PlannedFileChange[]>;
  /** Directories the plan's reads opened, by path (see `TransactionOptions.held`; the caller closes them). */
  readonly held?: ReadonlyMap<string, ParentEntry>;
  /** The call's signal: fired before the commit point, nothing is changed (see `TransactionOptions.signal`). */
  readonly signal?: AbortSignal;
}

/**
 * Applies planned changes all or nothing. Under the files' locks (in this process and across
 * processes, keyed by each file's real path, taken in sorted order), each file is read again and
 * must still be what the plan saw, else nothing is written (`version_conflict`). The change is
 * then made by one crash-safe transaction (see `applyFileChanges`). When it fails after some files
 * were changed, those are restored, and the error reports what is really on disk, file by file.
 * The change is journaled for `undo`.
 */
export async function commitFileChanges(
  scope: FileScope,
  tool: string,
  changes: readonly PlannedFileChange[],
  journal: EditJournal | undefined,
  options: CommitOptions = {},
): Promise<JournalEntry | undefined> {
  options.signal?.throwIfAborted();
  const keys = await Promise.all(changes.map((change) => change.lockKey ?? scope.lockKey(change.path)));
  return withFileLocks(keys, async () => {
    options.signal?.throwIfAborted();
    // Before the check: a dead writer whose lock was just broken may have a committed change to
    // roll forward, and the check must see the files as they really are (see recoverWorkspace).
    await recoverWorkspace(scope);
    let planned = changes;
    let made: string[];
    try {
      made = await commitLocked(scope, planned, options.held, options.signal);
    } catch (error) {
      if (!(error instanceof VersionConflict) || options.replan === undefined) throw conflictError(error);
      planned = await options.replan();
      made = await commitLocked(scope, planned, options.held, options.signal).catch((again: unknown) => {
        throw conflictError(again);
      });
    }

    // Where the lock key is the resolved write path, the journal takes it (no second resolution).
    const resolvedKeys = planned === changes && isBatchScope(scope) && scope.lockKeyIsWritePath ? keys : undefined;
    const files: JournaledFile[] = await Promise.all(
      planned.map(async (change, index) =>
        journaled(
          {
            path: resolvedKeys?.[index] ?? (await scope.resolve(change.path, "write")),
            displayPath: shown(change),
            // The identity undo checks: the lock key the change was made under.
            realPath: planned === changes ? (keys[index] as string) : await scope.lockKey(change.path),
            before: change.before,
          },
          change.after,
        ),
      ),
    );
    return journal?.record(tool, files, made);
  });
}

/**
 * The journal's record of a file: `after` as a buffer, joined from a patch's pieces only when
 * read (undo, redo, a saved journal), not for every change made.
 */
function journaled(file: Omit<JournaledFile, "after">, after: Buffer | PiecedBytes | undefined): JournaledFile {
  if (!(after instanceof PiecedBytes)) return { ...file, after };
  return Object.defineProperty({ ...file }, "after", {
    enumerable: true,
    get: () => after.bytes(),
  }) as JournaledFile;
}

/** The path messages show for a change. */
function shown(change: PlannedFileChange): string {
  return change.displayPath ?? change.path;
}

/** The shown path of the change whose path (as given) is `file`. */
function shownOf(file: string, changes: readonly PlannedFileChange[]): string {
  const change = changes.find((each) => each.path === file);
  return change === undefined ? file : shown(change);
}

/** The shown path of the file whose step failed (the first change's when no step says). */
function failedPath(error: unknown, changes: readonly PlannedFileChange[]): string {
  const failed = error instanceof FileStepError ? changes.find((change) => change.path === error.path) : undefined;
  const change = failed ?? changes[0];
  return change === undefined ? "" : shown(change);
}

/** A planned file that is no longer what the plan saw (the change was not made). */
class VersionConflict extends Error {
  constructor(
    readonly change: PlannedFileChange,
    readonly current: Buffer | undefined,
  ) {
    super("version conflict");
  }
}

/** A read that failed while checking the files: its error goes to the caller as it is. */
class CheckFailed extends Error {
  constructor(readonly error: unknown) {
    super("check failed");
  }
}

/** The error a failed commit gives the caller: a conflict as `version_conflict`, a failed check's own error (told as changing no file). */
function conflictError(error: unknown): unknown {
  // The check under the locks comes before anything is written: its failure changed no file.
  if (error instanceof CheckFailed) return toldUnchanged(error.error);
  if (!(error instanceof VersionConflict)) return error;
  const { change, current } = error;
  return new ToolError(
    "version_conflict",
    `"${shown(change)}" changed since it was read (expected ${versionOf(change.before)}, now ${versionOf(current)}). Nothing was written.`,
    {
      hint: "Read the file again and redo the change on its current content.",
      data: { path: shown(change), current: versionOf(current) },
    },
  );
}

/**
 * Checks, in the order of `changes`, that every file is still what the plan saw: the first read
 * that fails throws its error ({@link CheckFailed}), else the first file that changed throws
 * {@link VersionConflict}. `current` holds what was already read (through the transaction's
 * verified directories); a missing entry is read alone.
 */
async function checkUnchanged(
  scope: FileScope,
  changes: readonly PlannedFileChange[],
  current: ReadonlyMap<PlannedFileChange, ReadOutcome | undefined>,
): Promise<void> {
  const outcomes = changes.map((change) => current.get(change));
  // The rest in one batch (not one open each at once: a change over hundreds of directories
  // would pass the open-file limit, see `readMany`).
  const missing = changes.flatMap((_, index) => (outcomes[index] === undefined ? [index] : []));
  const read = await readManyOf(
    scope,
    missing.map((index) => (changes[index] as PlannedFileChange).path),
    (path) => readIfPresent(scope, path),
  );
  for (const [position, index] of missing.entries()) outcomes[index] = read[position];
  const failed = outcomes.find((outcome) => outcome?.ok === false);
  if (failed !== undefined && !failed.ok) throw new CheckFailed(failed.error);
  for (const [index, change] of changes.entries()) {
    const outcome = outcomes[index];
    const bytes = outcome?.ok === true ? outcome.bytes : undefined;
    if (!sameContent(bytes, change.before)) throw new VersionConflict(change, bytes);
  }
}

/**
 * Makes the changes that change something, in one transaction, after checking (under the locks,
 * through the transaction's own verified directories, before anything is written) that every
 * planned file is still what the plan saw. Returns the directories the change made.
 */
async function commitLocked(
  scope: FileScope,
  changes: readonly PlannedFileChange[],
  held: ReadonlyMap<string, ParentEntry> | undefined,
  signal: AbortSignal | undefined,
): Promise<string[]> {
  const effective = changes.filter((change) => !sameContent(change.before, change.after));
  const verify = async (current: readonly (ReadOutcome | undefined)[]) => {
    const known = new Map<PlannedFileChange, ReadOutcome | undefined>();
    for (const [index, change] of effective.entries()) known.set(change, current[index]);
    await checkUnchanged(scope, changes, known);
  };
  try {
    if (effective.length === 0) {
      await checkUnchanged(scope, changes, new Map());
      return [];
    }
    return await applyFileChanges(
      scope,
      effective.map((change) => ({
        path: change.path,
        after: change.after,
        expected: change.before,
        ...(change.beforeLook === undefined ? {} : { expectedLook: change.beforeLook }),
      })),
      { verify, ...(held === undefined ? {} : { held }), ...(signal === undefined ? {} : { signal }) },
    );
  } catch (error) {
    if (error instanceof VersionConflict || error instanceof CheckFailed) throw error;
    // Made (its log could not be taken back): told with what is at the paths now, never restored
    // over (a restore would write the old content over another writer's change once more).
    if (error instanceof AppliedDespiteLookError) throw await appliedDespiteLook(scope, effective, error);
    // Aborted before the commit point: nothing changed, and the run has answered already.
    if (signal?.aborted === true && !(error instanceof TransactionError)) throw error;
    if (!(error instanceof TransactionError)) {
      // Before the commit point: no file was touched (temporary files and made directories are gone).
      // A file changed meanwhile (say, its directory removed) is told as such, as when the check
      // came first: the caller may plan again.
      await checkUnchanged(scope, changes, new Map());
      const mapped = toFileToolError(error, failedPath(error, effective));
      if (!(mapped instanceof ToolError)) throw mapped;
      throw new ToolError(mapped.code, `${sentence(withoutChangeClaims(mapped.message))} No file was changed.`, {
        ...(mapped.hint === undefined ? {} : { hint: mapped.hint }),
      });
    }
    const cause = toFileToolError(error.cause, failedPath(error.cause, effective));
    // Taken back by the transaction itself or handed, still committed, to the recovery (see
    // `TransactionError`): never restored by a second change here, which the change's log would
    // not cover (a crash between the two would keep some files new). Told as it is on disk.
    throw await honestFailure(
      scope,
      effective,
      cause,
      error.changedMeanwhile.map((file) => shownOf(file, effective)),
      error.ending,
    );
  }
}

/**
 * The error for a change that failed after the commit point, built from what is on disk now (read
 * back file by file), never from what should be there.
 */
async function honestFailure(
  scope: FileScope,
  changes: readonly PlannedFileChange[],
  cause: unknown,
  changedMeanwhile: readonly string[] = [],
  ending: TransactionError["ending"] = "reverted",
): Promise<ToolError> {
  const states = await statesOnDisk(scope, changes);
  const code = cause instanceof ToolError ? cause.code : "write_failed";
  const reason =
    sentence(withoutChangeClaims(cause instanceof Error ? cause.message : String(cause))) +
    (changedMeanwhile.length === 0
      ? ""
      : ` ${changedMeanwhile.map((file) => `"${file}"`).join(", ")} changed after the change wrote it (another writer, taking no lock): left as that writer left it, not restored.`);
  const list = states.map((file) => `${file.path}: ${file.state} (${file.version})`).join("; ");
  if (ending === "handed_to_recovery") {
    // Still committed: the next recovery renames what is left, so every file will be new, even
    // where every file is old now (no rename landed: a file system turned read-only at the commit).
    return new ToolError(
      "partially_applied",
      `${reason} The change could neither be completed nor taken back: it stays committed, and the next recovery of the workspace (at a file call once the cause is gone) completes it, every file then as after the change. On disk now: ${list}.`,
      {
        hint: "Do not apply the change again: once the cause is gone, read the files listed (the read completes the change).",
        data: { files: states, pendingRecovery: true },
      },
    );
  }
  if (states.every((file) => file.state === "unchanged")) {
    return new ToolError(code, `${reason} No file was changed: every file written before the failure was restored.`, {
      data: { files: states },
    });
  }
  return new ToolError(
    "partially_applied",
    `${reason} The change was only partly applied and could not be fully restored. On disk now: ${list}.`,
    { hint: "Read the files listed and fix them; they are not as before nor as after the change.", data: { files: states } },
  );
}

/**
 * The error for a change made although its last look refused it (see `AppliedDespiteLookError`):
 * what the look found, and what is at the paths now (read back file by file).
 */
async function appliedDespiteLook(
  scope: FileScope,
  changes: readonly PlannedFileChange[],
  error: AppliedDespiteLookError,
): Promise<ToolError> {
  const states = await statesOnDisk(scope, changes);
  const list = states.map((file) => `${file.path}: ${file.state} (${file.version})`).join("; ");
  return new ToolError("partially_applied", `${error.message} On disk now: ${list}.`, {
    hint: "Read the files listed and check them: the change was made, but not as the paths show it or over another change.",
    data: { files: states, movedDirectories: error.movedDirectories, changedFiles: error.changedFiles },
  });
}

/** Each file of `changes` as read back now: unchanged (its content before), changed (after), or unknown. */
async function statesOnDisk(
  scope: FileScope,
  changes: readonly PlannedFileChange[],
): Promise<{ path: string; state: "unchanged" | "changed" | "unknown"; version: string }[]> {
  const read = await readManyOf(
    scope,
    changes.map((change) => change.path),
    (path) => readIfPresent(scope, path),
  );
  const states = changes.map((change, index) => {
    const outcome = read[index];
    const now = outcome?.ok === true ? versionOf(outcome.bytes) : "unreadable";
    const state = now === versionOf(change.before) ? "unchanged" : now === versionOf(change.after) ? "changed" : "unknown";
    return { path: shown(change), state, version: now } as const;
  });
  return states;
}

/** `text` ending as a sentence, so that the next one does not run into it. */
function sentence(text: string): string {
  return /[.!?]$/.test(text) ? text : `${text}.`;
}
