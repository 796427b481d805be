import type { Stats } from "node:fs";
import { constants } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import { lstat, open, rmdir } from "node:fs/promises";
import path from "node:path";
import { ToolError } from "agent-tool-catalog";
import { assertPlainFile } from "../sandbox/file-kind.js";
import { SandboxViolationError } from "../sandbox/sandbox-violation-error.js";
import type { FileScope, OpenParentOptions, ParentEntry } from "./file-scope.js";
import { guardedFileOperation } from "./file-scope-helpers.js";
import { applyFileChanges } from "./file-transaction.js";
import { recoverWorkspace } from "./intent-log.js";

/** What a scope decides itself: how paths are located; everything else is shared. */
export interface ScopeLocator {
  readonly root: string;
  readonly confined: boolean;
  resolve(path: string, intent: "read" | "write"): Promise<string>;
  display(absolutePath: string): string;
  openParent(path: string, options?: OpenParentOptions): Promise<ParentEntry>;
  lockKey(path: string): Promise<string>;
}

const READ_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

function specialKind(stats: Stats): string | undefined {
  if (stats.isFIFO()) return "named pipe (FIFO)";
  if (stats.isSocket()) return "socket";
  if (stats.isCharacterDevice()) return "character device";
  if (stats.isBlockDevice()) return "block device";
  return undefined;
}

/** Refuses what is not a regular file, in every scope (a FIFO or device could block or never end). */
export function assertReadableFile(stats: Stats, requested: string, confined: boolean): void {
  const special = specialKind(stats);
  if (special !== undefined) {
    throw new SandboxViolationError("special_file_refused", `Refused "${requested}": it is a ${special}, not a regular file.`, {
      data: { path: requested, kind: special },
    });
  }
  if (stats.isDirectory()) {
    throw new ToolError("is_a_directory", `"${requested}" is a directory, not a file.`, { hint: "Use ls to list a directory." });
  }
  if (confined) assertPlainFile(stats, requested);
}

/**
 * The full file scope over a locator: reads, stats and atomic changes through verified handles.
 * Every operation but the low-level `openParent` and `removeDirectory` (used by the recovery
 * itself and by transactions, which recover first) waits for the crash recovery of the workspace
 * (`recoverWorkspace`), so the first use of a workspace by any file tool in a process (`ls`,
 * `read`, `glob`, `grep`, a write...) finishes the changes a crashed process left in it.
 */
export function scopeFromLocator(locator: ScopeLocator): FileScope {
  const raw = rawScope(locator);
  const recovered =
    <A extends unknown[], R>(operation: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      await recoverWorkspace(raw);
      return operation(...args);
    };
  return {
    ...raw,
    resolve: recovered(raw.resolve),
    lockKey: recovered(raw.lockKey),
    openRead: recovered(raw.openRead),
    read: recovered(raw.read),
    stat: recovered(raw.stat),
    write: recovered(raw.write),
    remove: recovered(raw.remove),
    replaceStreaming: recovered(raw.replaceStreaming),
    makeDirectory: recovered(raw.makeDirectory),
  };
}

/** The scope's operations without the recovery wait. */
function rawScope(locator: ScopeLocator): FileScope {
  const scope: FileScope = {
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
      guardedFileOperation(requested, () =>
        applyFileChanges(scope, [
          { path: requested, after: data, ...(options.mode === undefined ? {} : { mode: options.mode }) },
        ]),
      ),
    remove: (requested) =>
      guardedFileOperation(requested, () => applyFileChanges(scope, [{ path: requested, after: undefined }])),
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
