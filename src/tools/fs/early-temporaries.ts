// Temporary files written before a change takes its locks. Flushing a few hundred new files is
// the longest wait of a large commit: the files are written as soon as the plan is known, and
// their flushes (through the thread pool) then run beside the lock taking, the recovery check,
// the directory walk and the check of every file under the locks, instead of after them.
import { close, closeSync, constants, fchmodSync, fsync, lstatSync, openSync, writeSync } from "node:fs";
import { unlink } from "node:fs/promises";
import { promisify } from "node:util";
import type { ParentEntry } from "./file-scope.js";
import { IntentLog } from "./intent-log.js";
import { openFileWindow } from "./open-file-limit.js";
import { StepPacer } from "./sync-slices.js";

/** One change that may be written early: its path as given, and its new content. */
export interface EarlyChange {
  readonly path: string;
  readonly after: Buffer | undefined;
}

interface EarlyFile {
  /** The directory (held by the plan's reads) the file was made through. */
  readonly parent: ParentEntry;
  readonly temporary: string;
  /** The mode it was made with: the existing file's kept mode, or `undefined` (0o666 less the umask). */
  readonly mode: number | undefined;
  /** Settles once the file is flushed and closed (or was never made): its error, or `undefined`. */
  done: Promise<unknown>;
  /** False when it was never made (the loop stopped before it): nothing to take or remove. */
  made: boolean;
  taken: boolean;
}

const WRITE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0);
const fsyncDescriptor = promisify(fsync);
const closeDescriptor = promisify(close);

/**
 * The mode a replacement of the entry keeps (as the transaction takes it under the locks), or
 * `null` when the entry is not a plain file or a missing one (not written early).
 */
function keptMode(parent: ParentEntry): number | undefined | null {
  try {
    const stats = lstatSync(parent.at(parent.name), { throwIfNoEntry: false });
    if (stats === undefined) return undefined;
    return stats.isFile() ? stats.mode & 0o1777 : null;
  } catch {
    return null;
  }
}

/** Creates `file` and writes `after` into it (synchronously, microseconds in the page cache); returns the descriptor. */
function writeSyncOnce(file: EarlyFile, after: Buffer): number {
  const fd = openSync(file.parent.at(file.temporary), WRITE_FLAGS, file.mode ?? 0o666);
  try {
    for (let written = 0; written < after.byteLength; ) written += writeSync(fd, after, written, after.byteLength - written);
    // The umask applied at open: set the kept mode exactly.
    if (file.mode !== undefined) fchmodSync(fd, file.mode);
    return fd;
  } catch (error) {
    try {
      closeSync(fd);
    } catch {
      // released all the same
    }
    throw error;
  }
}

/**
 * Temporary files written ahead of a transaction, through directories the plan's reads hold
 * open. Crash-safe as the transaction's own: the change is logged as prepared (naming every one
 * of these files) before the first is created, so a crash at any moment leaves files the next
 * recovery removes. The transaction takes a file only where its directory is the very handle it
 * was made through and the mode it keeps is the one it was made with ({@link take}); the others
 * are removed before its log names its own. Whoever ends without handing the log over to a
 * transaction calls {@link discard}.
 */
export class EarlyTemporaries {
  /** True once a transaction took the log over (it then removes what it took, and the log). */
  adopted = false;

  private constructor(
    /** The prepared log naming every early file (the transaction rewrites it with its entries). */
    readonly log: IntentLog,
    private readonly files: ReadonlyMap<string, EarlyFile>,
  ) {}

  /**
   * Writes the changes' new contents beside their files, for the changes whose directory `held`
   * has open and whose entry is a plain file or absent (`undefined` when fewer than two are).
   * Files are created and written in one synchronous loop paced by a `StepPacer` (as the
   * transaction writes its own); each one's flush and close are queued to the thread pool and
   * still running when this returns, at most an open-file window of them at once. A file that
   * fails, or that the loop did not reach (the disk made it slow), is left to the transaction.
   */
  static async start(
    root: string,
    changes: readonly EarlyChange[],
    held: ReadonlyMap<string, ParentEntry>,
    temporaryName: () => string,
  ): Promise<EarlyTemporaries | undefined> {
    const planned: { file: EarlyFile; path: string; after: Buffer }[] = [];
    for (const { path, after } of changes) {
      const parent = held.get(path);
      if (parent === undefined || after === undefined) continue;
      const mode = keptMode(parent);
      if (mode === null) continue;
      const file: EarlyFile = { parent, temporary: temporaryName(), mode, done: Promise.resolve(), made: false, taken: false };
      planned.push({ file, path, after });
    }
    if (planned.length < 2) return undefined;
    const log = await IntentLog.prepare(
      root,
      planned.map(({ file }) => ({
        directory: file.parent.realPath,
        name: file.parent.name,
        temporary: file.temporary,
        created: [],
      })),
    );
    const flushing = new Set<Promise<unknown>>();
    const openAtOnce = openFileWindow(256);
    const pacer = new StepPacer();
    for (const { file, after } of planned) {
      if (pacer.slow) break;
      while (flushing.size >= openAtOnce) await Promise.race(flushing);
      let fd: number;
      try {
        fd = writeSyncOnce(file, after);
      } catch {
        // Not made (or made and failed): the transaction writes it again under the locks.
        await unlink(file.parent.at(file.temporary)).catch(() => undefined);
        continue;
      }
      file.made = true;
      const done: Promise<unknown> = fsyncDescriptor(fd).then(
        () => closeDescriptor(fd).then(() => undefined),
        (error: unknown) =>
          closeDescriptor(fd).then(
            () => error ?? new Error("flush failed"),
            () => error ?? new Error("flush failed"),
          ),
      );
      file.done = done.catch((error: unknown) => error ?? new Error("close failed"));
      flushing.add(file.done);
      void file.done.finally(() => flushing.delete(file.done));
      await pacer.stepped();
    }
    return new EarlyTemporaries(log, new Map(planned.map(({ file, path }) => [path, file])));
  }

  /**
   * The early file for `path` when the transaction may use it: made, through the very directory
   * handle `parent` shares (the plan's, reused by the transaction), with the mode the transaction
   * keeps (`mode`). The file is then the transaction's.
   */
  take(path: string, parent: ParentEntry, mode: number | undefined): string | undefined {
    const file = this.files.get(path);
    if (file === undefined || !file.made || file.taken || file.parent.at !== parent.at || file.mode !== mode) return undefined;
    file.taken = true;
    return file.temporary;
  }

  /** Waits for the taken file of `path` to be flushed and closed; throws its error. */
  async settled(path: string): Promise<void> {
    const error = await this.files.get(path)?.done;
    if (error !== undefined) throw error;
  }

  /** Waits until every early file's flush and close are done. */
  async quiet(): Promise<void> {
    await Promise.all([...this.files.values()].map((file) => file.done));
  }

  /** Removes the made files no transaction took (unlinked at once: a flush still running on one is harmless). */
  async removeUntaken(): Promise<void> {
    await Promise.all(
      [...this.files.values()]
        .filter((file) => file.made && !file.taken)
        .map((file) => unlink(file.parent.at(file.temporary)).catch(() => undefined)),
    );
  }

  /** Removes every early file and the log: no transaction took them. */
  async discard(): Promise<void> {
    await Promise.all(
      [...this.files.values()]
        .filter((file) => file.made)
        .map((file) => unlink(file.parent.at(file.temporary)).catch(() => undefined)),
    );
    // Their descriptors are closed before the caller closes the directories they were made in.
    await this.quiet();
    await this.log.finish();
  }
}
