import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  statSync,
} from "node:fs";
import path from "node:path";
import { countOf } from "../errors/count-of.js";
import { type SpecialFileStats, specialFileKind } from "../errors/special-file-kind.js";
import { corruptRepositoryError, gitError } from "./git-errors.js";

/**
 * How the node driver reads repository files (`HEAD`, refs, `.git` files, pack indexes, packs,
 * loose objects). Every read of the git tools' node driver goes through one of these, so that
 * under sandbox `"workspace"` no read can leave the workspace, whatever `.git` says.
 */
export interface GitFileReader {
  /** The directory every opened file must really be in; `undefined` when reads are not confined. */
  readonly root: string | undefined;
  /**
   * Opens a file or directory for reading and returns its descriptor (the caller closes it);
   * `undefined` when nothing is there.
   * @throws ToolError `repository_outside_workspace` when what was opened is outside the root.
   */
  open(file: string): number | undefined;
  /**
   * A file's bytes, or `undefined` when it does not exist (or is a directory).
   * @throws ToolError `too_large` when the file holds more than `maxBytes` (checked before it is read).
   * @throws ToolError `corrupt_object` when it is a FIFO, socket or device: read as "absent" it made a
   * repository with such a `HEAD` or `packed-refs` answer "no commits yet".
   */
  readFile(file: string, maxBytes?: number): Buffer | undefined;
  /** The names in a directory; empty when it does not exist. */
  list(directory: string): string[];
  /** Whether something is at `file`, and what. */
  kind(file: string): "file" | "directory" | undefined;
  /**
   * A regular file's identity (device, inode, size, modification and change times in
   * nanoseconds): equal identities mean an unchanged file, as git's index assumes. `undefined` when it is not a file.
   * @throws ToolError `repository_outside_workspace` when what was opened is outside the root.
   */
  identity(file: string): string | undefined;
}

function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === "ENOENT" || code === "ENOTDIR" || code === "ELOOP";
}

function isInside(root: string, candidate: string): boolean {
  const relative = path.relative(root, candidate);
  return relative === "" || (!relative.startsWith(`..${path.sep}`) && relative !== ".." && !path.isAbsolute(relative));
}

/** The refusal the model sees: names the repository file, never where it leads on the host. */
export function outsideWorkspaceError(file: string, root: string): Error {
  const shown = isInside(root, path.resolve(file)) ? path.relative(root, path.resolve(file)) || "." : path.basename(file);
  return gitError(
    "repository_outside_workspace",
    `Refused to read git data through ${JSON.stringify(shown)}: it leads outside the workspace (a .git file, commondir, alternates entry or symbolic link pointing elsewhere). Under the workspace sandbox the git tools read only repositories whose files are all inside the workspace.`,
    "Use a repository that lives entirely inside the workspace (a plain clone, not a linked worktree or a repository with alternates elsewhere).",
  );
}

/**
 * The largest repository file read whole besides objects (`HEAD`, `packed-refs`, `config`,
 * `shallow`, `info/grafts`, alternates, `.mailmap`, a `.git` file): a repository holding 1M refs
 * has a ~70 MB `packed-refs`. A planted 1 GB file was read whole and turned into a string each
 * call (1.1 GB of memory, then V8's string limit: `tool_failed`).
 */
export const MAX_METADATA_BYTES = 128 * 1024 * 1024;

/** The refusal of a repository file over {@link MAX_METADATA_BYTES}: names the file, never where it is on the host. */
export function metadataTooLargeError(file: string, size: number): Error {
  return gitError(
    "too_large",
    `The repository file ${JSON.stringify(path.basename(file))} holds ${countOf(size, "byte")}, more than the git tools read (${MAX_METADATA_BYTES}).`,
    "The repository is damaged or hostile (no git file is this large in practice); use git in a shell, or repair it.",
  );
}

/**
 * The refusal of a repository file that is a FIFO, socket or device where git keeps a regular
 * file. Such a file cannot be taken as absent: a `HEAD` or `packed-refs` read as absent said "no
 * commits yet", a loose object "missing", a loose ref fell back to a stale packed one. Names the
 * file from its `.git` on, never where it is on the host.
 */
export function specialRepositoryFileError(file: string, stats: SpecialFileStats): Error {
  const normalized = file.split(path.sep).join("/");
  const inGit = normalized.lastIndexOf("/.git/");
  const shown = inGit === -1 ? path.basename(file) : normalized.slice(inGit + 1);
  return corruptRepositoryError(
    "corrupt_object",
    `Its file ${JSON.stringify(shown)} is ${describeSpecial(stats)}, not a regular file.`,
  );
}

function describeSpecial(stats: SpecialFileStats): string {
  const kind = specialFileKind(stats);
  return kind === undefined ? "a special file" : `a ${kind}`;
}

const DELETED = " (deleted)";

/** Where the kernel says descriptor `fd` is, or `undefined` without `/proc`. */
function openedPath(fd: number): string | undefined {
  try {
    const link = readlinkSync(`/proc/self/fd/${fd}`);
    return link.endsWith(DELETED) ? link.slice(0, -DELETED.length) : link;
  } catch {
    return undefined;
  }
}

/** True when descriptor `fd`, opened from `file`, is really inside `root`. */
function openedInside(fd: number, file: string, root: string): boolean {
  const located = openedPath(fd);
  if (located !== undefined) return located.startsWith("/") && isInside(root, located);
  // No /proc (macOS): resolve the path again and accept it only if it is the same inode (best effort).
  try {
    const real = realpathSync(file);
    const [opened, again] = [fstatSync(fd), statSync(real)];
    return isInside(root, real) && opened.dev === again.dev && opened.ino === again.ino;
  } catch {
    return false;
  }
}

/**
 * Linux's `O_PATH`: a descriptor that names a file without opening it for I/O, so the driver of a
 * FIFO or device is never called (a host process blocked writing to its FIFO is not woken, a
 * device's open has no effect). Node does not export it; libuv passes the flag through.
 */
const O_PATH = 0o10000000;
const PATH_ONLY = process.platform === "linux";

/** The most symbolic links {@link lookupTarget} follows, as the kernel's `MAXSYMLINKS`. */
const MAX_LINKS = 40;

/**
 * The most names {@link lookupTarget} walks in one lookup (`.` and `..` included), as the kernel
 * bounds a path (4096 bytes). Links alone did not bound the walk: each of 40 links can hold ~810
 * `d/../` steps, one synchronous `lstat` each on the event loop, and a planted `.git/HEAD` or ref
 * made of such links cost ~350 ms on every open (a plain file: 0.09 ms). A repository's files are
 * a few dozen names away, through a link or two. Measured on that chain (CPU time of a read, load
 * 14-17 on 2 cores, the kernel's own lookups included): 4096 names 14-77 ms, 1024 names 9-29 ms.
 */
const MAX_NAMES = 1024;

/**
 * What {@link lookupTarget} answers past {@link MAX_NAMES}: refused whatever the lookup would find,
 * found or not by the kernel, so the refusal says nothing about what is outside.
 */
const TOO_MANY_NAMES = Symbol("too many names");

/** `file` made absolute without collapsing its `..` (`path.resolve` does, lexically: `L/..` is not where `L` leads). */
function absoluteOf(file: string): string {
  return path.isAbsolute(file) ? file : `${process.cwd()}${path.sep}${file}`;
}

/** True when `file` holds a `..` name, which only a lookup name by name resolves as the kernel does. */
function climbs(file: string): boolean {
  return file.split(path.sep).includes("..");
}

/** True when `candidate` is a directory above `root` (the lookup may pass through on its way back in). */
function isAbove(root: string, candidate: string): boolean {
  const relative = path.relative(candidate, root);
  return relative !== "" && relative !== ".." && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative);
}

/** The names of `text` from its first to its last (`/a//b/` is `a`, `b`). */
function namesOf(text: string): string[] {
  return text.split(path.sep).filter((name) => name !== "");
}

/**
 * Where a lookup of `file` ends when it finds nothing, worked out as the kernel looks it up: name
 * by name, each symbolic link followed by its text where it is met, so a `..` after a link climbs
 * from where the link led (`L/../x` with `L -> /etc` is `/etc/../x`, not `x` beside `L`). Once the
 * lookup has reached `root`, it stops at the first name that would take it elsewhere than inside
 * the root or one of the root's own parents, and answers that place without looking at it: what
 * is outside (whether it exists, is a link, a directory) never changes the answer, so an existing
 * and a missing target outside are refused alike. Before it reaches the root (the caller's path,
 * e.g. a workspace given through a link) it follows the host's path as the kernel does.
 * `undefined` on a link loop or past {@link MAX_LINKS} links (the kernel answers `ELOOP` there),
 * {@link TOO_MANY_NAMES} past {@link MAX_NAMES} names.
 */
function lookupTarget(file: string, root: string): string | undefined | typeof TOO_MANY_NAMES {
  const pending = namesOf(file).reverse();
  let resolved = path.parse(file).root;
  let reached = isInside(root, resolved);
  let links = MAX_LINKS;
  let names = MAX_NAMES;
  for (let name = pending.pop(); name !== undefined; name = pending.pop()) {
    names -= 1;
    if (names < 0) return TOO_MANY_NAMES;
    if (name === ".") continue;
    const candidate = name === ".." ? path.dirname(resolved) : path.join(resolved, name);
    if (reached && !isInside(root, candidate) && !isAbove(root, candidate)) return candidate;
    if (name === "..") {
      resolved = candidate;
      reached ||= isInside(root, resolved);
      continue;
    }
    let link: string;
    try {
      const stats = lstatSync(candidate);
      if (!stats.isSymbolicLink()) {
        // The kernel stops at a name that is not a directory with names still to look up (ENOTDIR).
        if (!stats.isDirectory() && pending.length > 0) return candidate;
        resolved = candidate;
        reached ||= isInside(root, resolved);
        continue;
      }
      link = readlinkSync(candidate);
    } catch {
      // Nothing there (or unreadable): the lookup ends here, whatever names follow.
      return candidate;
    }
    links -= 1;
    if (links < 0) return undefined;
    pending.push(...namesOf(link).reverse());
    if (path.isAbsolute(link)) resolved = path.parse(link).root;
  }
  return resolved;
}

/**
 * True when the kernel's lookup of `file`, which found something inside `root` (at `located`,
 * where `/proc/self/fd` says it is), passed outside the root on its way: a link whose text leaves
 * and climbs back (`x -> /host/dir/../../workspace/f`) is found only when `/host/dir` exists, and
 * a missing one is refused ({@link NodeGitFileReader.absent}), so reading through it told the
 * model which host directories exist. A path the kernel found where its text says (no link on
 * the way and no `..`, the usual case) took no other route and costs nothing more; otherwise the
 * route is walked name by name as the kernel's, and one that leaves the root (or is too long to
 * walk) is refused like a target outside. A `..` makes the text say nothing: `ws/a/../../ws/f` is
 * `ws/f` to `path.resolve`, but the kernel climbs from where `a` leads. (A name swapped between
 * the open and that walk can still mislead it: a race, not an answer the model reads off a
 * planted link.)
 */
function leftOnTheWay(file: string, root: string, located: string | undefined): boolean {
  if (located === path.resolve(file) && !climbs(file)) return false;
  const target = lookupTarget(absoluteOf(file), root);
  return typeof target !== "string" || !isInside(root, target);
}

class NodeGitFileReader implements GitFileReader {
  constructor(readonly root: string | undefined) {}

  /**
   * Confined: nothing is at `file`, but the answer must not depend on what is outside. A lookup
   * that leaves the root is refused exactly as an existing file outside is, so a planted link
   * (`refs/heads/x -> /root/.ssh/id_rsa`) does not tell whether its target exists. A lookup too
   * long to walk is refused too, as {@link leftOnTheWay} refuses it when the kernel found something.
   */
  private absent(file: string): undefined {
    if (this.root === undefined) return undefined;
    const target = lookupTarget(absoluteOf(file), this.root);
    if (target === TOO_MANY_NAMES || (target !== undefined && !isInside(this.root, target))) {
      throw outsideWorkspaceError(file, this.root);
    }
    return undefined;
  }

  open(file: string): number | undefined {
    // Most files asked for are usually absent (info/grafts, refs/replace, shallow, loose refs): a stat
    // that answers "nothing there" without an exception costs a fraction of a failed open's error.
    try {
      if (statSync(file, { throwIfNoEntry: false }) === undefined) return this.absent(file);
    } catch (error) {
      // A symbolic link loop (ELOOP) or a file in place of a directory is "nothing there", as for open below.
      if (isMissing(error)) return this.absent(file);
      throw error;
    }
    if (this.root !== undefined && PATH_ONLY) return this.openConfined(file, this.root);
    let fd: number;
    try {
      // O_NONBLOCK: a FIFO planted in .git cannot hang the call.
      fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
    } catch (error) {
      if (isMissing(error)) return this.absent(file);
      // A socket cannot be opened (ENXIO): raw, that was tool_failed with the host path in it.
      if ((error as NodeJS.ErrnoException).code === "ENXIO") {
        throw specialRepositoryFileError(file, statSync(file, { throwIfNoEntry: false }) ?? {});
      }
      throw error;
    }
    if (this.root !== undefined && (!openedInside(fd, file, this.root) || leftOnTheWay(file, this.root, openedPath(fd)))) {
      closeSync(fd);
      throw outsideWorkspaceError(file, this.root);
    }
    return fd;
  }

  /**
   * Linux, confined: the file is located with an `O_PATH` descriptor and opened for reading only
   * once it is known to be inside, through that descriptor (`/proc/self/fd/N` names the inode
   * found, not the path again). Opened first, a link to a host FIFO woke the host process blocked
   * writing to it, and a link to a device ran its driver's open, before the refusal.
   */
  private openConfined(file: string, root: string): number | undefined {
    let located: number;
    try {
      located = openSync(file, O_PATH);
    } catch (error) {
      if (isMissing(error)) return this.absent(file);
      throw error;
    }
    try {
      if (!openedInside(located, file, root) || leftOnTheWay(file, root, openedPath(located))) {
        throw outsideWorkspaceError(file, root);
      }
      // O_NONBLOCK as before; the reopen goes through the descriptor's inode, never the path again.
      return openSync(`/proc/self/fd/${located}`, constants.O_RDONLY | constants.O_NONBLOCK);
    } catch (error) {
      // A socket cannot be opened (ENXIO), as in open.
      if ((error as NodeJS.ErrnoException).code === "ENXIO") throw specialRepositoryFileError(file, fstatSync(located));
      throw error;
    } finally {
      closeSync(located);
    }
  }

  readFile(file: string, maxBytes = Number.POSITIVE_INFINITY): Buffer | undefined {
    const fd = this.open(file);
    if (fd === undefined) return undefined;
    try {
      const stats = fstatSync(fd);
      if (stats.isDirectory()) return undefined;
      if (!stats.isFile()) throw specialRepositoryFileError(file, stats);
      if (stats.size > maxBytes) throw metadataTooLargeError(file, stats.size);
      return readFileSync(fd);
    } finally {
      closeSync(fd);
    }
  }

  list(directory: string): string[] {
    if (this.root === undefined) {
      try {
        return readdirSync(directory);
      } catch (error) {
        if (isMissing(error)) return [];
        throw error;
      }
    }
    const fd = this.open(directory);
    if (fd === undefined) return [];
    try {
      if (!fstatSync(fd).isDirectory()) return [];
      // The kernel lists the directory it opened, not whatever the path names by now.
      return readdirSync(openedPath(fd) === undefined ? directory : `/proc/self/fd/${fd}`);
    } finally {
      closeSync(fd);
    }
  }

  identity(file: string): string | undefined {
    const fd = this.open(file);
    if (fd === undefined) return undefined;
    try {
      const stats = fstatSync(fd, { bigint: true });
      if (!stats.isFile()) return undefined;
      return `${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeNs}:${stats.ctimeNs}`;
    } finally {
      closeSync(fd);
    }
  }

  kind(file: string): "file" | "directory" | undefined {
    const fd = this.open(file);
    if (fd === undefined) return undefined;
    try {
      const stats = fstatSync(fd);
      return stats.isDirectory() ? "directory" : stats.isFile() ? "file" : undefined;
    } finally {
      closeSync(fd);
    }
  }
}

/** A reader that reads anywhere (no sandbox, or a host-given repository outside any workspace). */
export function unconfinedReader(): GitFileReader {
  return new NodeGitFileReader(undefined);
}

/**
 * A reader confined to `root`: every file is opened first and the descriptor's real location
 * (`/proc/self/fd/N`) must be inside the root's real path, so symbolic links, `gitdir:` files,
 * `commondir` and alternates that lead elsewhere are refused, and a link swapped in between a
 * check and the open cannot redirect it.
 */
export function confinedReader(root: string): GitFileReader {
  let real: string;
  try {
    real = realpathSync(root);
  } catch {
    real = path.resolve(root);
  }
  return new NodeGitFileReader(real);
}
