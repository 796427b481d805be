import { opendir } from "node:fs/promises";
import path from "node:path";

/** One entry found by {@link walkDirectory}. */
export interface WalkEntry {
  /** Absolute path. */
  readonly absolute: string;
  /** Path relative to the walk's start, with `/` separators. */
  readonly relative: string;
  /** What it is. Symbolic links are reported, never followed. */
  readonly kind: "file" | "directory" | "symlink" | "other";
  /** Depth below the start (1 = a direct child). */
  readonly depth: number;
}

/** Options of {@link walkDirectory}. */
export interface WalkOptions {
  /** Deepest level to descend to. @defaultValue Infinity */
  readonly maxDepth?: number;
  /** Directory names not entered (their entry is still yielded). */
  readonly skipDirectories?: ReadonlySet<string>;
  /** Stops the walk. */
  readonly signal?: AbortSignal;
}

/** Directories that tools skip unless asked: version control data and dependency trees. */
export const DEFAULT_SKIPPED_DIRECTORIES: ReadonlySet<string> = new Set([".git", "node_modules", ".hg", ".svn"]);

/**
 * Walks a directory tree breadth-first in name order, without following symbolic links (a link
 * to a directory outside the workspace is listed, not entered).
 */
export async function* walkDirectory(start: string, options: WalkOptions = {}): AsyncGenerator<WalkEntry> {
  const maxDepth = options.maxDepth ?? Number.POSITIVE_INFINITY;
  const queue: { absolute: string; relative: string; depth: number }[] = [{ absolute: start, relative: "", depth: 0 }];
  while (queue.length > 0) {
    const directory = queue.shift() as { absolute: string; relative: string; depth: number };
    options.signal?.throwIfAborted();
    for (const { name, kind } of await readSortedEntries(directory.absolute)) {
      const absolute = path.join(directory.absolute, name);
      const relative = directory.relative === "" ? name : `${directory.relative}/${name}`;
      const depth = directory.depth + 1;
      yield { absolute, relative, kind, depth };
      if (kind === "directory" && depth < maxDepth && options.skipDirectories?.has(name) !== true) {
        queue.push({ absolute, relative, depth });
      }
    }
  }
}

/** A directory's entries sorted by name; none when it cannot be read (skipped, as find(1) does). */
async function readSortedEntries(directory: string): Promise<{ name: string; kind: WalkEntry["kind"] }[]> {
  const entries: { name: string; kind: WalkEntry["kind"] }[] = [];
  try {
    for await (const entry of await opendir(directory)) {
      const kind = entry.isSymbolicLink() ? "symlink" : entry.isDirectory() ? "directory" : entry.isFile() ? "file" : "other";
      entries.push({ name: entry.name, kind });
    }
  } catch {
    return [];
  }
  return entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
