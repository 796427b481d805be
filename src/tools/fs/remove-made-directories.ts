import { closeSync, constants, fstatSync, lstatSync, openSync, readlinkSync, rmdirSync } from "node:fs";
import path from "node:path";
import type { FileScope } from "./file-scope.js";
import { DESCRIPTOR_PATHS, heldDescriptor, type VerifiedDirectory } from "./verified-directory.js";

const DIRECTORY_FLAGS = constants.O_RDONLY | (constants.O_DIRECTORY ?? 0) | (constants.O_NOFOLLOW ?? 0);

/**
 * Removes, deepest first, the directories a change made, each once and only when empty (a file
 * put there since keeps it and its parents), so the workspace is left as before the change. Each
 * is removed through a verified handle of its parent (`scope.removeDirectory`); one that cannot
 * be removed is left as it is.
 *
 * All of a change's directories go through one call, never file by file: files opened one by
 * one (the host scope opens them in parallel) can each name only part of a shared new path (one
 * made `p`, the other `p/q`), and removing each file's list in turn tried `p` while `p/q` still
 * stood and left `p` behind.
 */
export async function removeMadeDirectories(scope: FileScope, directories: Iterable<string>): Promise<void> {
  const deepestFirst = [...new Set(directories)].sort((left, right) => depthOf(right) - depthOf(left));
  for (const directory of deepestFirst) await scope.removeDirectory(directory).catch(() => undefined);
}

function depthOf(directory: string): number {
  return directory.split(path.sep).length;
}

/**
 * The directories a change made that `realPath` removes by climbing: `realPath` itself, then each
 * parent in turn, as long as each is in `made` (the union of every held directory's `created`,
 * real paths when made). Taken from the union, not from one held directory's own list: files
 * opened in parallel each name only the part of a shared new path their own open made (one made
 * `p`, the other `p/q`), so a climb bounded by its own list stopped below `p` and left it behind.
 * Innermost first; empty when `realPath` was not made by the change.
 */
export function madeChainOf(realPath: string, made: ReadonlySet<string>): string[] {
  const chain: string[] = [];
  let directory = realPath;
  while (made.has(directory)) {
    chain.push(directory);
    const parent = path.dirname(directory);
    if (parent === directory) break;
    directory = parent;
  }
  return chain;
}

/**
 * Removes the directories a change made on the way to the held directory `held` (its
 * {@link madeChainOf} in `made`), through the handle, never by path: from the held directory up
 * through its real parent (`/proc/self/fd/<fd>/..`), each removed only when the entry under its
 * current name in that parent is still this very directory (device and inode) and it is empty. So
 * a directory moved away meanwhile loses the empty directories the change made in it, and a
 * user's directory put at their old path since is left alone (a removal by path took the user's
 * and left the change's). Stops at the first that cannot be removed (not empty: its parents are
 * not empty either). Callers go deepest held directory first, so a shared made parent is tried
 * after every held directory below it. Returns false, removing nothing, where it cannot be done
 * through the handle (not Linux, a closed handle, the held directory not made by the change): the
 * caller decides what to do by path.
 */
export function removeMadeThroughHeld(held: VerifiedDirectory, made: ReadonlySet<string>): boolean {
  const fd = heldDescriptor(held);
  const levels = madeChainOf(held.realPath, made).length;
  if (!DESCRIPTOR_PATHS || fd === undefined || levels === 0) return false;
  let child: number;
  try {
    child = openSync(`/proc/self/fd/${fd}/.`, DIRECTORY_FLAGS);
  } catch {
    return false;
  }
  removeUpFrom(child, levels);
  return true;
}

/**
 * For a made directory whose handle is closed (a grouped change's, see `applyInGroups`): opens
 * `realPath` again and, only when the directory there is the very one made (`identity`, its
 * `dev:ino` when first opened), removes its {@link madeChainOf} in `made` as
 * {@link removeMadeThroughHeld} does, through the handle up its real parents. Anything else at the
 * path (a user's directory put there after the made one was moved away, a symbolic link, nothing)
 * is left, and so is the made one wherever it went: by path it cannot be reached. Returns the
 * directories for the caller to remove by path (`removeMadeDirectories`) where this cannot be done
 * through a handle (not Linux), and then only when the identity matched; else none.
 */
export function removeMadeIfStillThere(realPath: string, made: ReadonlySet<string>, identity: string): readonly string[] {
  const chain = madeChainOf(realPath, made);
  if (chain.length === 0) return [];
  let fd: number;
  try {
    fd = openSync(realPath, DIRECTORY_FLAGS);
  } catch {
    return [];
  }
  let same = false;
  try {
    const stats = fstatSync(fd);
    same = `${stats.dev}:${stats.ino}` === identity;
  } catch {
    // Not askable: left.
  }
  if (!same || !DESCRIPTOR_PATHS) {
    closeSync(fd);
    return same ? chain : [];
  }
  removeUpFrom(fd, chain.length);
  return [];
}

/**
 * Removes `levels` directories, `child` (an open directory descriptor, closed here) first, then up
 * through its real parents (`/proc/self/fd/<fd>/..`), each only when the entry under its current
 * name in its parent is still this very directory (device and inode) and it is empty; stops at the
 * first that cannot be removed.
 */
function removeUpFrom(first: number, levels: number): void {
  let child = first;
  try {
    for (let level = 0; level < levels; level++) {
      const own = fstatSync(child);
      const name = path.basename(readlinkSync(`/proc/self/fd/${child}`));
      const up = openSync(`/proc/self/fd/${child}/..`, DIRECTORY_FLAGS);
      closeSync(child);
      child = up;
      const entry = `/proc/self/fd/${up}/${name}`;
      const there = lstatSync(entry, { throwIfNoEntry: false });
      if (there === undefined || there.dev !== own.dev || there.ino !== own.ino) break;
      try {
        rmdirSync(entry);
      } catch {
        break;
      }
    }
  } catch {
    // Gone or not askable: what is left stays.
  } finally {
    closeSync(child);
  }
}
