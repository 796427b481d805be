import type { Stats } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import type { ToolContext } from "agent-tool-catalog";
import type { VerifiedDirectory } from "./verified-directory.js";

/**
 * The directory that holds a path's entry, opened and verified, and the entry's name in it.
 *
 * @public
 */
export interface ParentEntry extends VerifiedDirectory {
  /** The entry's name in the directory (one path component). */
  readonly name: string;
}

/**
 * How {@link FileScope.openParent} opens a path's directory.
 *
 * @public
 */
export interface OpenParentOptions {
  /** Create missing directories on the way (through verified handles). @defaultValue false */
  readonly create?: boolean;
  /** Resolve a final symbolic link to the entry it names (inside the scope). @defaultValue true */
  readonly follow?: boolean;
  /** The entry is about to be changed: git state is refused under confinement. @defaultValue true */
  readonly mutate?: boolean;
}

/**
 * Where a file tool may read and write, as decided by the run's sandbox.
 *
 * @public
 */
export interface FileScope {
  /** The directory relative paths start from (the workspace, or the host's working directory). */
  readonly root: string;
  /** True under sandbox `"workspace"`: every path is confined to `root`. */
  readonly confined: boolean;
  /** The absolute path a requested path means, checked for the intent (informational: never acted on). */
  resolve(path: string, intent: "read" | "write"): Promise<string>;
  /** How to name an absolute path to the model: relative to the root when inside it. */
  display(absolutePath: string): string;
  /**
   * Opens the directory holding `path` one component at a time without following symlinks and
   * verifies it (inside the workspace when confined); every change then acts on the entry through
   * that handle, so a directory swapped for a symlink meanwhile cannot redirect it.
   */
  openParent(path: string, options?: OpenParentOptions): Promise<ParentEntry>;
  /**
   * Opens a regular file for reading without blocking (`O_NONBLOCK`, then `fstat`): FIFOs,
   * sockets, devices and directories are refused.
   */
  openRead(path: string): Promise<FileHandle>;
  /** The key of the file's real identity (its real path), shared by every spelling and process. */
  lockKey(path: string): Promise<string>;
  /** Removes an empty directory (by real path) through a verified handle; a rollback uses it. */
  removeDirectory(realPath: string): Promise<void>;
  /** Reads a whole regular file. */
  read(path: string): Promise<Buffer>;
  /** The file's stats, or `undefined` when nothing is there (a final symlink inside the scope is followed). */
  stat(path: string): Promise<Stats | undefined>;
  /** Replaces a file atomically (temporary file in the same directory, then rename), keeping its mode. */
  write(path: string, data: string | Uint8Array, options?: { readonly mode?: number }): Promise<void>;
  /** Removes a file. */
  remove(path: string): Promise<void>;
  /** Creates a directory and its parents. */
  makeDirectory(path: string): Promise<void>;
  /**
   * Replaces a file with what `fill` writes to a fresh temporary file in the same directory, then
   * renames it over the target; on any failure the temporary file is removed and the target is
   * untouched (no partial file is ever left). Missing directories above it are made, and removed
   * again when it fails.
   * @returns The directories it made (real paths), which an undo removes again.
   */
  replaceStreaming(path: string, fill: (handle: FileHandle) => Promise<void>): Promise<readonly string[]>;
}

/**
 * Options the file tools take from the host.
 *
 * @public
 */
export interface FileScopeOptions {
  /**
   * The root for relative paths when the run has no workspace.
   * @defaultValue `ctx.permissions.workspace`, else `process.cwd()`
   */
  readonly root?: string;
}

/** The scope's root for a call: the run's workspace, the host's option, or the working directory. */
export function scopeRoot(context: ToolContext, options: FileScopeOptions): string {
  return context.permissions.workspace ?? options.root ?? process.cwd();
}
