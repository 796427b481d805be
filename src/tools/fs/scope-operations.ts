import type { FileHandle } from "node:fs/promises";
import { lstat, open, rmdir } from "node:fs/promises";
import path from "node:path";
import { ToolError } from "agent-tool-catalog";
import { SandboxViolationError } from "../sandbox/sandbox-violation-error.js";
import { readForEdit } from "./edit-size-limit.js";
import type { FileScope, OpenParentOptions, ParentEntry } from "./file-scope.js";
import { guardedFileOperation } from "./file-scope-helpers.js";
import { applyFileChanges } from "./file-transaction.js";
import { isGitStateRefusal } from "./git-state-guard.js";
import { inParallel } from "./in-parallel.js";
import { recoverWorkspace, recoverWorkspaceForReading } from "./intent-log.js";
import { directoryGroups, directoryWindow } from "./open-file-limit.js";
import {
  type BatchFileScope,
  type OpenedParent,
  openParentsOneByOne,
  type ReadManyOptions,
  type ReadOutcome,
} from "./parent-batch.js";
import { assertReadableFile, READ_FLAGS, readEntryWithStatsSync } from "./read-entry.js";
import { inSyncSlices } from "./sync-slices.js";

/** What a scope decides itself: how paths are located; everything else is shared. */
export interface ScopeLocator {
  readonly root: string;
  readonly confined: boolean;
  resolve(path: string, intent: "read" | "write"): Promise<string>;
  display(absolutePath: string): string;
  openParent(path: string, options?: OpenParentOptions): Promise<ParentEntry>;
  lockKey(path: string): Promise<string>;
  /** True when `lockKey(path)` is `resolve(path, "write")` (a caller may then resolve once for both). */
  readonly lockKeyIsWritePath?: boolean;
  /**
   * `openParent` of many paths, one walk per directory; default: one `openParent` per path.
   * `held`: directories opened earlier for the same paths, reused where still valid.
   */
  openParents?(
    paths: readonly string[],
    options: OpenParentOptions,
    held?: readonly (ParentEntry | undefined)[],
  ): Promise<OpenedParent[]>;
}

export { assertReadableFile } from "./read-entry.js";

/**
 * The full file scope over a locator: reads, stats and atomic changes through verified handles.
 * Every operation but the low-level `openParent` and `removeDirectory` (used by the recovery
 * itself and by transactions, which recover first) waits for the crash recovery of the workspace
 * (`recoverWorkspace`), so the first use of a workspace by any file tool in a process (`ls`,
 * `read`, `glob`, `grep`, a write...) finishes the changes a crashed process left in it.
 */
export function scopeFromLocator(locator: ScopeLocator): BatchFileScope {
  const raw = rawScope(textPathsOnly(locator));
  const after =
    (recovery: (scope: FileScope) => Promise<void>) =>
    <A extends unknown[], R>(operation: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      await recovery(raw);
      return operation(...args);
    };
  const recovered = after(recoverWorkspace);
  // A recovery that could not complete blocks changes only (see `recoverWorkspaceForReading`).
  const recoveredForReading = after(recoverWorkspaceForReading);
  return {
    ...raw,
    resolve: recoveredForReading(raw.resolve),
    lockKey: recovered(raw.lockKey),
    openRead: recoveredForReading(raw.openRead),
    read: recoveredForReading(raw.read),
    stat: recoveredForReading(raw.stat),
    write: recovered(raw.write),
    remove: recovered(raw.remove),
    replaceStreaming: recovered(raw.replaceStreaming),
    makeDirectory: recovered(raw.makeDirectory),
    readMany: recoveredForReading(raw.readMany),
  };
}

/** A lone UTF-16 surrogate: JSON may carry one (`"\ud800"`), no file name on disk decodes to one. */
const LONE_SURROGATE = /\p{Cs}/u;

/**
 * Refuses a path holding a lone surrogate as a path with a NUL byte is refused (`invalid_path`):
 * encoded, it became U+FFFD, so
 * `write` of `s\ud800.txt` made `s\ufffd.txt` and reported the name it was given, and a read
 * of it found another file (one truly named with U+FFFD).
 */
function textPathsOnly(locator: ScopeLocator): ScopeLocator {
  const check = (requested: string) => {
    if (!LONE_SURROGATE.test(requested)) return;
    throw new ToolError(
      "invalid_path",
      `${JSON.stringify(requested)} is not a valid path (it holds a lone UTF-16 surrogate, not text).`,
      {
        hint: "Give the path as plain text, copied from ls or glob.",
      },
    );
  };
  const openParents = locator.openParents;
  return {
    ...locator,
    resolve: async (requested, intent) => {
      check(requested);
      return locator.resolve(requested, intent);
    },
    openParent: async (requested, options) => {
      check(requested);
      return locator.openParent(requested, options);
    },
    lockKey: async (requested) => {
      check(requested);
      return locator.lockKey(requested);
    },
    ...(openParents === undefined
      ? {}
      : {
          openParents: async (paths, options, held) => {
            for (const requested of paths) check(requested);
            return openParents.call(locator, paths, options, held);
          },
        }),
  };
}

/** The scope's operations without the recovery wait. */
function rawScope(locator: ScopeLocator): BatchFileScope {
  const openParents = (paths: readonly string[], options: OpenParentOptions, held?: readonly (ParentEntry | undefined)[]) =>
    locator.openParents === undefined
      ? openParentsOneByOne(paths, (requested) => locator.openParent(requested, options))
      : locator.openParents(paths, options, held);
  const scope: BatchFileScope = {
    lockKeyIsWritePath: locator.lockKeyIsWritePath === true,
    root: locator.root,
    confined: locator.confined,
    resolve: (requested, intent) => locator.resolve(requested, intent),
    display: (absolute) => locator.display(absolute),
    openParent: (requested, options) => locator.openParent(requested, options),
    lockKey: (requested) => guardedFileOperation(requested, () => locator.lockKey(requested)),
    openRead: (requested) => guardedFileOperation(requested, () => openRead(locator, requested)),
    removeDirectory: async (realPath) => {
      const parent = await locator.openParent(realPath, { follow: false, mutate: false });
      try {
        await rmdir(parent.at(parent.name));
      } finally {
        await parent.close();
      }
    },
    openParents,
    readMany: (paths, options) => readMany(locator, paths, openParents, scope, options ?? {}),
    read: (requested) =>
      guardedFileOperation(requested, async () => {
        const handle = await openRead(locator, requested);
        try {
          return await handle.readFile();
        } finally {
          await handle.close();
        }
      }),
    stat: async (requested) => {
      // Missing is `undefined`; a refused path (outside, symlink escape) is an error the model must see.
      const parent = await locator.openParent(requested, { follow: true, mutate: false }).catch((error: unknown) => {
        if (error instanceof ToolError && error.code === "is_a_directory") return "root" as const;
        if (error instanceof SandboxViolationError || error instanceof ToolError) throw error;
        return undefined;
      });
      if (parent === undefined) return undefined;
      if (parent === "root") return lstat(locator.root);
      try {
        return await lstat(parent.at(parent.name)).catch(() => undefined);
      } finally {
        await parent.close();
      }
    },
    write: (requested, data, options = {}) =>
      guardedFileOperation(requested, async () => {
        await applyFileChanges(scope, [
          { path: requested, after: data, ...(options.mode === undefined ? {} : { mode: options.mode }) },
        ]);
      }),
    remove: (requested) =>
      guardedFileOperation(requested, async () => {
        await applyFileChanges(scope, [{ path: requested, after: undefined }]);
      }),
    replaceStreaming: (requested, fill) =>
      guardedFileOperation(requested, () => applyFileChanges(scope, [{ path: requested, after: fill }])),
    makeDirectory: (requested) =>
      guardedFileOperation(requested, async () => {
        // The placeholder entry makes openParent create (and verify) every directory of `requested`.
        const parent = await locator.openParent(path.join(requested, ".atc-directory"), { create: true, follow: false });
        await parent.close();
      }),
  };
  return scope;
}

/**
 * Reads many files as `readIfPresent` does (absent: `undefined`), through one verified directory
 * handle per directory. A path whose batched open or read meets anything but a plain file or a
 * missing one (a final symlink included: under confinement the parents are opened without
 * following it, and the read refuses it) is read again alone through `scope.read`, which gives its
 * exact answer. Where the scope's lock key is the write path, a path read through the batch also
 * gets its key: its verified directory's real path and its name. With `keep`, such a path's
 * directory is left open and handed back (`ReadOutcome.parent`; the caller closes it).
 */
async function readMany(
  locator: ScopeLocator,
  paths: readonly string[],
  openParents: (paths: readonly string[], options: OpenParentOptions) => Promise<OpenedParent[]>,
  scope: FileScope,
  { keep = false, mutate = false }: ReadManyOptions,
): Promise<ReadOutcome[]> {
  const results: ReadOutcome[] = paths.map(() => ({ ok: true, bytes: undefined }));
  const again: number[] = [];
  // Directories in groups of at most `directoryWindow()`, so that a patch over more directories
  // than the open-file limit allows is read, not refused as too_many_open_files; only the first
  // group's are kept open for the commit (the commit walks to the others again).
  const groups = directoryGroups(
    paths.map((_, index) => index),
    (index) => path.dirname(paths[index] as string),
    directoryWindow(),
  );
  for (const [group, indexes] of groups.entries()) {
    await readGroup(locator, paths, indexes, openParents, { keep: keep && group === 0, mutate }, results, again);
  }
  await inParallel(again, async (index) => {
    results[index] = await readForEdit(scope, paths[index] as string).then(
      (read) => ({ ok: true, bytes: read }) as const,
      (error: unknown) =>
        error instanceof ToolError && (error.code === "file_not_found" || error.code === "not_a_directory")
          ? ({ ok: true, bytes: undefined } as const)
          : ({ ok: false, error } as const),
    );
  });
  return results;
}

/**
 * `readMany`'s batched reads of the paths at `indexes` (one group of directories): results are
 * set in `results`, and what must be read again alone is pushed to `again`.
 */
async function readGroup(
  locator: ScopeLocator,
  paths: readonly string[],
  indexes: readonly number[],
  openParents: (paths: readonly string[], options: OpenParentOptions) => Promise<OpenedParent[]>,
  { keep, mutate }: { keep: boolean; mutate: boolean },
  results: ReadOutcome[],
  again: number[],
): Promise<void> {
  const opened = await openParents(
    indexes.map((index) => paths[index] as string),
    { follow: !locator.confined, mutate },
  );
  // The batched reads, synchronously in one loop (small files from the page cache: microseconds
  // each, where a thread-pool round trip per step costs more than the read); what fails there is
  // read again alone afterwards, for its exact answer.
  const kept = new Set<number>();
  await inSyncSlices(indexes, (index, position) => {
    const requested = paths[index] as string;
    const entry = opened[position] as OpenedParent;
    if (!entry.ok) {
      // A change there is refused whatever the file holds: the refusal is the answer, not a read.
      if (mutate && isGitStateRefusal(entry.error)) results[index] = { ok: false, error: entry.error };
      else again.push(index);
      return;
    }
    try {
      const read = readEntryWithStatsSync(entry.parent, requested, locator.confined);
      const bytes = read?.bytes;
      const key = locator.lockKeyIsWritePath === true ? path.join(entry.parent.realPath, entry.parent.name) : undefined;
      results[index] = {
        ok: true,
        bytes,
        ...(key === undefined ? {} : { key }),
        ...(keep ? { parent: entry.parent } : {}),
        ...(read === undefined ? {} : { look: read.look }),
      };
      if (keep) kept.add(position);
    } catch {
      again.push(index);
    }
  });
  await Promise.all(opened.map((entry, position) => (entry.ok && !kept.has(position) ? entry.parent.close() : undefined)));
}

async function openRead(locator: ScopeLocator, requested: string): Promise<FileHandle> {
  for (let attempt = 0; ; attempt++) {
    const parent = await locator.openParent(requested, { follow: true, mutate: false });
    let handle: FileHandle;
    try {
      const entry = parent.at(parent.name);
      // Cheap first refusal of special files, before any open (opening some devices has effects).
      assertReadableFile(await lstat(entry), requested, locator.confined);
      handle = await open(entry, READ_FLAGS);
    } catch (error) {
      // A symlink swapped in after the parent was resolved: resolve again (a few times at most).
      if ((error as NodeJS.ErrnoException).code === "ELOOP" && attempt < 4) continue;
      if ((error as NodeJS.ErrnoException).code === "ENXIO") {
        throw new SandboxViolationError("special_file_refused", `Refused "${requested}": it is a socket, not a regular file.`, {
          data: { path: requested, kind: "socket" },
        });
      }
      throw error;
    } finally {
      await parent.close();
    }
    try {
      assertReadableFile(await handle.stat(), requested, locator.confined);
      return handle;
    } catch (error) {
      await handle.close();
      throw error;
    }
  }
}
