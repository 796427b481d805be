import type { BigIntStats } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import { readlink, realpath, stat } from "node:fs/promises";
import { isInsideDirectory } from "./workspace-root.js";

/** Where an open file descriptor really is, and how that was found out. */
export interface OpenedFileLocation {
  /** The absolute path of the opened file, or `undefined` when it could not be established. */
  readonly path: string | undefined;
  /**
   * `proc`: read from `/proc/self/fd/N` (Linux), which names the file the kernel opened.
   * `realpath`: `/proc` is missing (macOS has no `F_GETPATH` in Node), so the path was resolved
   * again and accepted only if it names the same device and inode as the descriptor.
   */
  readonly method: "proc" | "realpath";
}

const DELETED_SUFFIX = " (deleted)";

/**
 * Finds the path of the file behind `handle`, to check after `open` that a symlink swapped into
 * an intermediate directory did not redirect the open. `O_NOFOLLOW` only guards the last
 * component, so this check is what makes the open race-free on Linux.
 *
 * The `realpath` fallback (macOS, or Linux without `/proc`) is weaker: a second swap between the
 * `realpath` and the `stat` can still fool it. Together with the single-link rule (`nlink` 1) it
 * catches a single swap, so treat it as best effort.
 */
export async function locateOpenedFile(handle: FileHandle, openedPath: string, stats: BigIntStats): Promise<OpenedFileLocation> {
  let link: string | undefined;
  try {
    link = await readlink(`/proc/self/fd/${handle.fd}`);
  } catch {
    link = undefined;
  }
  if (link !== undefined) {
    const path = link.endsWith(DELETED_SUFFIX) ? link.slice(0, -DELETED_SUFFIX.length) : link;
    return { path: path.startsWith("/") ? path : undefined, method: "proc" };
  }
  try {
    const real = await realpath(openedPath);
    const again = await stat(real, { bigint: true });
    const same = again.dev === stats.dev && again.ino === stats.ino;
    return { path: same ? real : undefined, method: "realpath" };
  } catch {
    return { path: undefined, method: "realpath" };
  }
}

/** True when the located file is inside `root` (a real path). */
export function isLocatedInside(location: OpenedFileLocation, root: string): boolean {
  return location.path !== undefined && isInsideDirectory(root, location.path);
}
