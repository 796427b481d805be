import path from "node:path";
import type { FileScope } from "./file-scope.js";

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
