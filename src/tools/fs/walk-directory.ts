import { constants } from "node:fs";
import { lstat, open, opendir, readlink, realpath } from "node:fs/promises";
import path from "node:path";
import { hasUnsafeCharacter, quotedName } from "./listed-name.js";
import { lstatOrUndefined } from "./lstat-or-undefined.js";
import { inSyncSlices } from "./sync-slices.js";

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
  /** Size in bytes (files), read through the verified directory handle. */
  readonly size?: number;
  /** See {@link ListedEntry.undecodable}: never entered, and `absolute` names no such entry. */
  readonly undecodable?: true;
}

/** Options of {@link walkDirectory}. */
export interface WalkOptions {
  /** Deepest level to descend to. @defaultValue Infinity */
  readonly maxDepth?: number;
  /** Directory names not entered (their entry is still yielded). */
  readonly skipDirectories?: ReadonlySet<string>;
  /** Stops the walk. */
  readonly signal?: AbortSignal;
  /**
   * The workspace's real path: every directory is opened as a verified handle inside it (see
   * {@link listDirectory}), so a directory swapped for a symbolic link mid-walk is never listed.
   */
  readonly confineTo?: string;
  /**
   * Told of each directory that could not be read (`relative` as in {@link WalkEntry}, `""` for
   * the start; `code` the errno code, e.g. `EACCES`): its entries are missing from the walk, and
   * a tool that said nothing of it answered "0 entries" or "No files match" of a directory that
   * holds files.
   */
  readonly onUnreadable?: (relative: string, code: string) => void;
}

/** A directory a walk could not read, as {@link WalkOptions.onUnreadable} was told of it. */
export interface UnreadableDirectory {
  readonly relative: string;
  readonly code: string;
}

/**
 * The lines a listing adds for directories it could not read, so that a missing part is never
 * read as "nothing there": `[not read: sub/ (EACCES: permission denied)]`. `below` turns a walk's
 * relative path into the path the answer shows.
 */
export function unreadableLines(unreadable: readonly UnreadableDirectory[], below: (relative: string) => string): string[] {
  return unreadable.map(({ relative, code }) => {
    const why = code === "EACCES" || code === "EPERM" ? `${code}: permission denied` : code;
    const where = below(relative);
    return `[not read: ${hasUnsafeCharacter(where) ? quotedName(`${where}/`) : `${where}/`} (${why}); its entries are missing here]`;
  });
}

/**
 * The line a listing gives an entry whose name is not valid UTF-8 in place of a name: the file
 * tools take paths as text, so no path reaches it, and its lossy decoding would name its U+FFFD
 * twin (a different file, when one exists). `where`: its path as the listing shows it, lossy.
 */
export function undecodableLine(where: string, kind: WalkEntry["kind"]): string {
  const what = kind === "directory" ? `${where}/` : where;
  const entries = kind === "directory" ? ", its entries are missing here" : "";
  return `[not reachable by name: ${quotedName(what)} (its name is not valid UTF-8; U+FFFD stands for the bytes, so that name is another file or none; rename it outside the file tools to use it${entries})]`;
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
    const unreadable = (code: string) => options.onUnreadable?.(directory.relative, code);
    for (const { name, kind, size, undecodable } of await listDirectory(directory.absolute, options.confineTo, unreadable)) {
      const absolute = path.join(directory.absolute, name);
      const relative = directory.relative === "" ? name : `${directory.relative}/${name}`;
      const depth = directory.depth + 1;
      const found: WalkEntry = { absolute, relative, kind, depth };
      yield undecodable === true ? { ...found, undecodable } : size === undefined ? found : { ...found, size };
      // One not valid UTF-8 cannot be named: its path would open its U+FFFD twin, if any.
      if (kind === "directory" && undecodable !== true && depth < maxDepth && options.skipDirectories?.has(name) !== true) {
        queue.push({ absolute, relative, depth });
      }
    }
  }
}

/**
 * `{ confineTo }` for a run whose file tools are confined to the workspace (scope `"workspace"`),
 * with the workspace's real path; `{}` otherwise.
 */
export async function confinementRoot(
  context: { readonly permissions: { readonly sandbox: string } },
  root: string,
): Promise<{ confineTo?: string }> {
  if (context.permissions.sandbox !== "workspace") return {};
  return { confineTo: await realpath(root).catch(() => root) };
}

/** One entry of {@link listDirectory}. */
export interface ListedEntry {
  readonly name: string;
  readonly kind: WalkEntry["kind"];
  /** Size of a regular file, when the listing was confined (read through the handle). */
  readonly size?: number;
  /**
   * The entry's name is not valid UTF-8: `name` is its lossy decoding (U+FFFD for the bad bytes),
   * which names no entry, or another one (a file truly named with U+FFFD). No path string can
   * reach it, so a listing names it as unreachable, never as that other name.
   */
  readonly undecodable?: true;
}

/**
 * A directory's entries sorted by name (byte order); none when it cannot be read (skipped, as
 * find(1) does; `onUnreadable` is told the errno code, as find(1) prints it).
 *
 * With `confineTo` (Linux), the directory is opened once with `O_DIRECTORY | O_NOFOLLOW`, the
 * handle's real location (`/proc/self/fd/N`) is checked to be inside `confineTo`, and the listing
 * and the sizes are read through `/proc/self/fd/N/...`, which the kernel does not resolve again:
 * a concurrent swap of the directory (or of any directory above it) for a symbolic link to the
 * outside makes the listing empty, never an outside listing. Elsewhere the directory's real path
 * is checked before and after listing.
 */
export async function listDirectory(
  directory: string,
  confineTo?: string,
  onUnreadable?: (code: string) => void,
): Promise<ListedEntry[]> {
  if (confineTo === undefined) return readSortedEntries(directory, onUnreadable);
  if (process.platform !== "linux") {
    if (!(await insideReal(directory, confineTo))) return [];
    const entries = await readSortedEntries(directory, onUnreadable);
    return (await insideReal(directory, confineTo)) ? entries : [];
  }
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(directory, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
  } catch (error) {
    reportUnreadable(error, onUnreadable);
    return [];
  }
  try {
    const via = `/proc/self/fd/${handle.fd}`;
    // The kernel's path of the handle, in one call: realpath(3) of it looked up every prefix in
    // turn, cubic in the depth (a 400-deep chain cost a glob 1.3 s of CPU, 2,000 deep minutes).
    const real = await readlink(via).catch(() => undefined);
    if (real === undefined || !isInside(real, confineTo)) return [];
    const entries: ListedEntry[] = await readSortedEntries(via, onUnreadable);
    // Synchronous lstats paced by inSyncSlices: 100,000 at once through the thread pool (a
    // promise each) held the event loop for seconds.
    const sized = (index: number, size: number | undefined) => {
      if (size !== undefined) entries[index] = { ...(entries[index] as ListedEntry), size };
    };
    await inSyncSlices(
      entries,
      (entry, index) => {
        if (entry.kind === "file" && entry.undecodable !== true) sized(index, lstatOrUndefined(path.join(via, entry.name))?.size);
      },
      async (entry, index) => {
        if (entry.kind === "file" && entry.undecodable !== true)
          sized(index, (await lstat(path.join(via, entry.name)).catch(() => undefined))?.size);
      },
    );
    return entries;
  } finally {
    await handle.close();
  }
}

async function insideReal(directory: string, root: string): Promise<boolean> {
  const real = await realpath(directory).catch(() => undefined);
  return real !== undefined && isInside(real, root);
}

function isInside(candidate: string, root: string): boolean {
  const relative = path.relative(root, candidate);
  return relative === "" || (!relative.startsWith("..") && !path.isAbsolute(relative));
}

/**
 * Tells `onUnreadable` why a directory could not be read, unless it is gone or no directory any
 * more (moved, swapped for a file or a link mid-walk: nothing is missing from the answer then).
 */
function reportUnreadable(error: unknown, onUnreadable: ((code: string) => void) | undefined): void {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (typeof code !== "string" || code === "ENOENT" || code === "ENOTDIR" || code === "ELOOP") return;
  onUnreadable?.(code);
}

/**
 * A directory's entries sorted by name; none when it cannot be read (skipped, as find(1) does,
 * and, as find(1) does, told: `onUnreadable`).
 */
async function readSortedEntries(directory: string, onUnreadable?: (code: string) => void): Promise<ListedEntry[]> {
  const entries: ListedEntry[] = [];
  try {
    // Names as bytes: decoded by Node, a name that is not valid UTF-8 came back as its U+FFFD
    // twin, indistinguishable from a file truly named so. (@types/node's `opendir` omits the
    // "buffer" encoding, which Node takes.)
    for await (const entry of await opendir(directory, { encoding: "buffer" as BufferEncoding })) {
      const kind = entry.isSymbolicLink() ? "symlink" : entry.isDirectory() ? "directory" : entry.isFile() ? "file" : "other";
      const bytes = entry.name as unknown as Buffer;
      const name = bytes.toString("utf8");
      entries.push(
        Buffer.byteLength(name) === bytes.length && Buffer.from(name).equals(bytes)
          ? { name, kind }
          : { name, kind, undecodable: true },
      );
    }
  } catch (error) {
    reportUnreadable(error, onUnreadable);
    return [];
  }
  return sortByteOrder(entries);
}

const SURROGATE = /[\uD800-\uDFFF]/;

/**
 * Entries in byte order of their UTF-8 names. UTF-16 order is the same unless a name holds a
 * surrogate pair, so only then are the names encoded (once each): a comparator encoding both
 * names on each call held the event loop for seconds on a directory of 100,000 entries.
 */
function sortByteOrder<T extends { readonly name: string }>(entries: T[]): T[] {
  if (!entries.some((entry) => SURROGATE.test(entry.name))) {
    return entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }
  const keyed = entries.map((entry) => ({ entry, key: Buffer.from(entry.name) }));
  keyed.sort((a, b) => Buffer.compare(a.key, b.key));
  return keyed.map(({ entry }) => entry);
}
