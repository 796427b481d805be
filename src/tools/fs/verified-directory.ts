import {
  closeSync,
  constants,
  existsSync,
  fstatSync,
  fsync as fsyncCallback,
  lstatSync,
  mkdir as mkdirCallback,
  mkdirSync,
  open as openCallback,
  openSync,
  readlinkSync,
  rmdirSync,
} from "node:fs";
import type { FileHandle } from "node:fs/promises";
import { lstat, mkdir, open, rmdir } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { inParallel } from "./in-parallel.js";
import { StepPacer } from "./sync-slices.js";

/**
 * True where `/proc/self/fd/<fd>/<name>` names an entry of the directory behind `fd` (Linux).
 * There a path built that way is resolved by the kernel from the descriptor, not from a path
 * that may have been swapped since: this is what makes every mutation race-free.
 */
export const DESCRIPTOR_PATHS = process.platform === "linux" && existsSync("/proc/self/fd");

const DIRECTORY_FLAGS = constants.O_RDONLY | (constants.O_DIRECTORY ?? 0) | (constants.O_NOFOLLOW ?? 0);

/**
 * A directory opened and checked once; every operation on its entries goes through the handle.
 *
 * @public
 */
export interface VerifiedDirectory {
  /** The directory's real path (for messages, lock keys and the intent log; never re-resolved to act). */
  readonly realPath: string;
  /** Directories this open created, outermost first (a rollback removes them again). */
  readonly created: readonly string[];
  /** A path naming `name` inside this very directory; `name` must be one path component. */
  at(name: string): string;
  /** Flushes the directory (renames and unlinks in it) to disk; unsupported platforms are ignored. */
  sync(): Promise<void>;
  /** Closes the handle. */
  close(): Promise<void>;
}

/**
 * The open descriptor behind a verified directory (and each share of it), while it is open: what
 * {@link stillWhereVerified} asks the kernel about. Kept beside the objects, not on them (the
 * interfaces are public and a descriptor is not for callers to use).
 */
const descriptors = new WeakMap<object, () => number | undefined>();

/** Lets `share` (an entry sharing `directory`'s handle, until `shareClosed()`) be checked as `directory` is. */
export function shareDescriptor(share: object, directory: VerifiedDirectory, shareClosed: () => boolean): void {
  const descriptor = descriptors.get(directory);
  if (descriptor !== undefined) descriptors.set(share, () => (shareClosed() ? undefined : descriptor()));
}

/**
 * True when the directory opened and verified earlier is, right now, still the directory at its
 * real path: the kernel's path of its open descriptor (read from `/proc/self/fd`) is exactly the
 * `realPath` it was verified at. A directory moved or removed since (renamed out of the workspace,
 * replaced by a symlink after being moved away) has another path there, or a " (deleted)" one.
 * False wherever this cannot be asked (not Linux, a closed handle): the caller then walks again.
 */
export function stillWhereVerified(directory: VerifiedDirectory): boolean {
  if (!DESCRIPTOR_PATHS) return false;
  const fd = descriptors.get(directory)?.();
  if (fd === undefined) return false;
  try {
    return readlinkSync(`/proc/self/fd/${fd}`) === directory.realPath;
  } catch {
    return false;
  }
}

/**
 * The open descriptor behind a verified directory (or a share or copy of it), or `undefined` once
 * closed or when not known. For identity checks through the handle (`fstat`), never to act on entries
 * (`at` is for that).
 */
export function heldDescriptor(directory: VerifiedDirectory): number | undefined {
  const known = descriptors.get(directory);
  if (known !== undefined) return known();
  // A copy of one (`{ ...directory, name }`) is not in the map; on Linux its `at` names the descriptor.
  const named = DESCRIPTOR_PATHS ? /^\/proc\/self\/fd\/(\d+)\/\.$/.exec(directory.at("."))?.[1] : undefined;
  return named === undefined ? undefined : Number(named);
}

/** Raised while walking when a component is a symbolic link (or not a directory). */
export class LinkOnTheWay extends Error {
  constructor(readonly component: string) {
    super(`"${component}" is a symbolic link or not a directory`);
  }
}

function errorCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

async function isSymbolicLink(entry: string): Promise<boolean> {
  return lstat(entry).then(
    (stats) => stats.isSymbolicLink(),
    () => false,
  );
}

async function openDirectoryNoFollow(at: string): Promise<FileHandle> {
  return open(at, DIRECTORY_FLAGS);
}

function entryOf(handle: FileHandle, realPath: string, name: string): string {
  return DESCRIPTOR_PATHS ? `/proc/self/fd/${handle.fd}/${name}` : path.join(realPath, name);
}

/** The real path of an open directory, read from the kernel where possible. */
async function realPathOf(handle: FileHandle, fallback: string): Promise<string> {
  if (!DESCRIPTOR_PATHS) return fallback;
  // Synchronous: procfs answers from the kernel's memory (no disk), far cheaper than a trip
  // through the thread pool, once per directory of a large change.
  return withoutDeletedMark(handle.fd, readlinkSync(`/proc/self/fd/${handle.fd}`));
}

const DELETED_MARK = " (deleted)";

/**
 * The kernel's path of descriptor `fd` (`link`, read from `/proc/self/fd`) without the " (deleted)"
 * the kernel puts after the path of a removed directory. A directory may really be named
 * "x (deleted)", so the mark is cut only when the uncut path is not this very directory (device
 * and inode): cutting it always made every change inside such a directory fail its checks.
 */
function withoutDeletedMark(fd: number, link: string): string {
  if (!link.endsWith(DELETED_MARK)) return link;
  try {
    const there = lstatSync(link);
    const held = fstatSync(fd);
    if (there.dev === held.dev && there.ino === held.ino) return link;
  } catch {
    // Nothing there (or not askable): the directory was removed while held.
  }
  return link.slice(0, -DELETED_MARK.length);
}

type DirectoryVisitor = (at: (name: string) => string, depth: number, realPath: string) => Promise<void>;

async function visitOpened(
  visit: DirectoryVisitor | undefined,
  handle: FileHandle,
  realPath: string,
  depth: number,
): Promise<void> {
  if (visit !== undefined) await visit((name) => entryOf(handle, realPath, name), depth, realPath);
}

/**
 * Opens `segment` of the directory behind `handle` without following it; with `create`, makes it
 * first when missing and reports that through `onMade`.
 */
async function openStep(
  handle: FileHandle,
  current: string,
  segment: string,
  create: boolean,
  onMade: (name: string) => void,
): Promise<FileHandle> {
  const entry = entryOf(handle, current, segment);
  try {
    return await openDirectoryNoFollow(entry);
  } catch (error) {
    const code = errorCode(error);
    if (code === "ENOENT" && create) {
      try {
        await mkdir(entry, { mode: 0o777 });
        onMade(segment);
      } catch (made) {
        if (errorCode(made) !== "EEXIST") throw made;
      }
      return openDirectoryNoFollow(entry).catch((again) => {
        throw errorCode(again) === "ELOOP" || errorCode(again) === "ENOTDIR" ? new LinkOnTheWay(segment) : again;
      });
    }
    if ((code === "ELOOP" || code === "ENOTDIR") && (await isSymbolicLink(entry))) throw new LinkOnTheWay(segment);
    throw error;
  }
}

/**
 * Opens the directory `segments` (already normalised: no `.`, `..` or empty parts) below `rootReal`
 * one component at a time, each with `O_DIRECTORY | O_NOFOLLOW` relative to the handle of the
 * previous one, so no symlink swapped in anywhere can redirect the walk. With `create`, missing
 * directories are made (again relative to the verified handle). The result's real path is read
 * back from `/proc/self/fd` and `checkInside` is called with it.
 * @throws LinkOnTheWay when a component is a symlink (the caller resolves it and walks again).
 */
export async function openVerifiedDirectory(
  rootReal: string,
  segments: readonly string[],
  options: {
    readonly create: boolean;
    readonly checkInside: (realPath: string) => void;
    /**
     * Called with each directory opened on the way (the root at depth 0, then one per segment),
     * through its handle: `at(name)` names an entry of that very directory, `realPath` is the
     * path of the components opened so far (none a symlink).
     */
    readonly visit?: DirectoryVisitor;
  },
): Promise<VerifiedDirectory> {
  let handle = await openDirectoryNoFollow(rootReal);
  let current = rootReal;
  const created: string[] = [];
  // Where this walk made a directory: its parent's handle (kept open) and its name, so a walk
  // that fails further down removes them again through the handles, never by path.
  const made: { readonly parent: FileHandle; readonly parentPath: string; readonly name: string }[] = [];
  const release = async (handles: readonly FileHandle[]) => {
    for (const kept of new Set(handles)) await kept.close().catch(() => undefined);
  };
  try {
    for (const [depth, segment] of segments.entries()) {
      await visitOpened(options.visit, handle, current, depth);
      const next = await openStep(handle, current, segment, options.create, (name) => {
        created.push(path.join(current, name));
        made.push({ parent: handle, parentPath: current, name });
      });
      if (made.at(-1)?.parent !== handle) await handle.close();
      handle = next;
      current = path.join(current, segment);
    }
    await visitOpened(options.visit, handle, current, segments.length);
    const realPath = await realPathOf(handle, current);
    options.checkInside(realPath);
    await release(made.map((entry) => entry.parent));
    const opened = handle;
    const directory: VerifiedDirectory = {
      realPath,
      created,
      at: (name) => entryOf(opened, realPath, name),
      sync: async () => {
        try {
          await opened.sync();
        } catch {
          // EINVAL/EISDIR where directories cannot be flushed: the operation itself is done.
        }
      },
      close: () => opened.close().catch(() => undefined),
    };
    descriptors.set(directory, () => (opened.fd === -1 ? undefined : opened.fd));
    return directory;
  } catch (error) {
    for (const { parent, parentPath, name } of [...made].reverse()) {
      await rmdir(entryOf(parent, parentPath, name)).catch(() => undefined);
    }
    await release([handle, ...made.map((entry) => entry.parent)]);
    throw error;
  }
}

/**
 * Called for each directory a tree walk opens: `prefix` names it (segments below the root).
 * Returns `undefined` where it has nothing to look at there (no waiting), or the promise of its
 * look (a read through the thread pool): the walk's pacer leaves that wait out of the opens' time.
 */
export type TreeVisitor = (
  at: (name: string) => string,
  depth: number,
  realPath: string,
  prefix: readonly string[],
) => Promise<void> | undefined;

interface TreeNode {
  readonly children: Map<string, TreeNode>;
  /** Set when this directory was asked for. */
  wanted: boolean;
}

/**
 * `fs.open` through the thread pool, looked up at each call rather than bound once by `promisify`
 * when this module loads: a caller observing the `node:fs` functions (the test counting directory
 * opens, test/tools/apply-patch-walks.test.ts) then sees these opens as it sees `openSync`'s.
 */
function openDescriptor(entry: string, flags: number): Promise<number> {
  return new Promise((resolve, reject) => {
    openCallback(entry, flags, (error, fd) => (error === null ? resolve(fd) : reject(error)));
  });
}
const makeDirectory = promisify(mkdirCallback);
const syncDescriptor = promisify(fsyncCallback);

function entryOfDescriptor(fd: number, realPath: string, name: string): string {
  return DESCRIPTOR_PATHS ? `/proc/self/fd/${fd}/${name}` : path.join(realPath, name);
}

function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // Already closed by the kernel's view (EBADF cannot happen for a descriptor we own): nothing to do.
  }
}

/** The error of opening `entry` as a directory step: a symlink or non-directory is {@link LinkOnTheWay}. */
function stepError(error: unknown, entry: string, segment: string, afterCreate: boolean): unknown {
  const code = errorCode(error);
  if (code !== "ELOOP" && code !== "ENOTDIR") return error;
  if (afterCreate) return new LinkOnTheWay(segment);
  const stats = (() => {
    try {
      return lstatSync(entry, { throwIfNoEntry: false });
    } catch {
      return undefined;
    }
  })();
  return stats?.isSymbolicLink() === true ? new LinkOnTheWay(segment) : error;
}

/**
 * {@link openStep} on descriptors, synchronously: opening a directory that is in the kernel's
 * caches costs microseconds, a thread-pool round trip many times that (see `StepPacer`).
 */
function openStepSync(fd: number, current: string, segment: string, create: boolean, onMade: () => void): number {
  const entry = entryOfDescriptor(fd, current, segment);
  try {
    return openSync(entry, DIRECTORY_FLAGS);
  } catch (error) {
    if (errorCode(error) !== "ENOENT" || !create) throw stepError(error, entry, segment, false);
  }
  try {
    mkdirSync(entry, { mode: 0o777 });
    onMade();
  } catch (made) {
    if (errorCode(made) !== "EEXIST") throw made;
  }
  try {
    return openSync(entry, DIRECTORY_FLAGS);
  } catch (again) {
    throw stepError(again, entry, segment, true);
  }
}

/** {@link openStepSync} through the thread pool (when the disk makes synchronous steps wait). */
async function openStepAsync(fd: number, current: string, segment: string, create: boolean, onMade: () => void): Promise<number> {
  const entry = entryOfDescriptor(fd, current, segment);
  try {
    return await openDescriptor(entry, DIRECTORY_FLAGS);
  } catch (error) {
    if (errorCode(error) !== "ENOENT" || !create) throw stepError(error, entry, segment, false);
  }
  try {
    await makeDirectory(entry, { mode: 0o777 });
    onMade();
  } catch (made) {
    if (errorCode(made) !== "EEXIST") throw made;
  }
  try {
    return await openDescriptor(entry, DIRECTORY_FLAGS);
  } catch (again) {
    throw stepError(again, entry, segment, true);
  }
}

/** The real path of an open directory descriptor, read from the kernel where possible. */
function realPathOfDescriptor(fd: number, fallback: string): string {
  if (!DESCRIPTOR_PATHS) return fallback;
  return withoutDeletedMark(fd, readlinkSync(`/proc/self/fd/${fd}`));
}

/** A {@link VerifiedDirectory} over an open descriptor the walk verified (closed once, by `close`). */
function descriptorDirectory(fd: number, realPath: string, created: readonly string[]): VerifiedDirectory {
  let closed = false;
  const directory: VerifiedDirectory = {
    realPath,
    created,
    at: (name) => entryOfDescriptor(fd, realPath, name),
    sync: async () => {
      if (closed) return;
      try {
        await syncDescriptor(fd);
      } catch {
        // EINVAL/EISDIR where directories cannot be flushed: the operation itself is done.
      }
    },
    close: async () => {
      if (closed) return;
      closed = true;
      closeQuietly(fd);
    },
  };
  descriptors.set(directory, () => (closed ? undefined : fd));
  return directory;
}

/**
 * Opens many directories below `rootReal` as {@link openVerifiedDirectory} opens one, each
 * distinct directory once: a child is opened relative to its parent's verified descriptor with
 * `O_DIRECTORY | O_NOFOLLOW`, so directories sharing a prefix share its walk. Returns, per asked
 * directory (its segments joined with "/"), the opened directory or the error that stopped the
 * walk on its way (a symlink, a refusal of `visit` or `checkInside`, an I/O error): the caller
 * opens those again one by one for the exact answer. A directory this walk made that ends up
 * under no opened directory is removed again through its parent's descriptor. Every opened
 * directory's `created` lists all the directories this walk made on its way (a rollback of any
 * of them removes what is empty).
 *
 * The opens are synchronous calls paced by a {@link StepPacer} (a 500-file change in a deep tree
 * opens hundreds of directories; through the thread pool each open cost a round trip worth many
 * times the call); when the disk makes them slow, the rest go through the thread pool, several
 * children at a time. The pacer times them on the wall clock less the time the thread waited for
 * a CPU and less the visitor's own waits, so a loaded machine (the process preempted between opens)
 * can still make them look slow: a walk may switch part way, at a point that varies from run to
 * run, and opens each directory once either way.
 */
export async function openVerifiedTree(
  rootReal: string,
  directories: readonly (readonly string[])[],
  options: {
    readonly create: boolean;
    readonly checkInside: (realPath: string) => void;
    readonly visit?: TreeVisitor;
  },
): Promise<
  Map<string, { readonly ok: true; readonly directory: VerifiedDirectory } | { readonly ok: false; readonly error: unknown }>
> {
  const root: TreeNode = { children: new Map(), wanted: false };
  for (const segments of directories) {
    let node = root;
    for (const segment of segments) {
      let child = node.children.get(segment);
      if (child === undefined) {
        child = { children: new Map(), wanted: false };
        node.children.set(segment, child);
      }
      node = child;
    }
    node.wanted = true;
  }
  const results = new Map<
    string,
    { readonly ok: true; readonly directory: VerifiedDirectory } | { readonly ok: false; readonly error: unknown }
  >();
  const fail = (node: TreeNode, prefix: readonly string[], error: unknown) => {
    if (node.wanted) results.set(prefix.join("/"), { ok: false, error });
    for (const [segment, child] of node.children) fail(child, [...prefix, segment], error);
  };
  const pacer = new StepPacer();
  /** Opens `segment` below `fd` and walks it; returns how many asked directories below it opened. */
  const descend = async (
    fd: number,
    current: string,
    prefix: readonly string[],
    created: readonly string[],
    segment: string,
    child: TreeNode,
  ): Promise<number> => {
    let made = false;
    let next: number;
    try {
      next = pacer.slow
        ? await openStepAsync(fd, current, segment, options.create, () => {
            made = true;
          })
        : openStepSync(fd, current, segment, options.create, () => {
            made = true;
          });
    } catch (error) {
      fail(child, [...prefix, segment], error);
      return 0;
    } finally {
      await pacer.stepped();
    }
    const childPath = path.join(current, segment);
    const below = await walk(child, next, childPath, [...prefix, segment], made ? [...created, childPath] : created);
    if (made && below === 0) {
      try {
        rmdirSync(entryOfDescriptor(fd, current, segment));
      } catch {
        // Not empty (someone else put something there) or gone: left as it is.
      }
    }
    return below;
  };
  /** Walks `node` (opened as `fd`, which it closes unless handed out); returns how many asked directories below it opened. */
  const walk = async (
    node: TreeNode,
    fd: number,
    current: string,
    prefix: readonly string[],
    created: readonly string[],
  ): Promise<number> => {
    let keep = false;
    let opened = 0;
    try {
      try {
        const looking = options.visit?.((name) => entryOfDescriptor(fd, current, name), prefix.length, current, prefix);
        if (looking !== undefined) {
          await looking;
          // The look waited on the thread pool (a HEAD, a `.git` file read): that wait is not the
          // opens' time, and counted as theirs it made every later open of the walk a round trip
          // through the pool (a 509-file patch whose paths name `config`: 551 of its 557 opens).
          pacer.resumed();
        }
        if (node.wanted) {
          const realPath = realPathOfDescriptor(fd, current);
          options.checkInside(realPath);
          results.set(prefix.join("/"), { ok: true, directory: descriptorDirectory(fd, realPath, created) });
          keep = true;
          opened++;
        }
      } catch (error) {
        fail(node, prefix, error);
        return 0;
      }
      if (!pacer.slow) {
        for (const [segment, child] of node.children) opened += await descend(fd, current, prefix, created, segment, child);
      } else {
        await inParallel([...node.children], async ([segment, child]) => {
          opened += await descend(fd, current, prefix, created, segment, child);
        });
      }
      return opened;
    } finally {
      if (!keep) closeQuietly(fd);
    }
  };
  let top: number;
  try {
    top = openSync(rootReal, DIRECTORY_FLAGS);
  } catch (error) {
    fail(root, [], error);
    return results;
  }
  await walk(root, top, rootReal, [], []);
  return results;
}
