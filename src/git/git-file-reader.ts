import {
  closeSync,
  constants,
  fstatSync,
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

class NodeGitFileReader implements GitFileReader {
  constructor(readonly root: string | undefined) {}

  open(file: string): number | undefined {
    // Most files asked for are usually absent (info/grafts, refs/replace, shallow, loose refs): a stat
    // that answers "nothing there" without an exception costs a fraction of a failed open's error.
    try {
      if (statSync(file, { throwIfNoEntry: false }) === undefined) return undefined;
    } catch (error) {
      // A symbolic link loop (ELOOP) or a file in place of a directory is "nothing there", as for open below.
      if (isMissing(error)) return undefined;
      throw error;
    }
    let fd: number;
    try {
      // O_NONBLOCK: a FIFO planted in .git cannot hang the call.
      fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
    } catch (error) {
      if (isMissing(error)) return undefined;
      // A socket cannot be opened (ENXIO): raw, that was tool_failed with the host path in it.
      if ((error as NodeJS.ErrnoException).code === "ENXIO") {
        throw specialRepositoryFileError(file, statSync(file, { throwIfNoEntry: false }) ?? {});
      }
      throw error;
    }
    if (this.root !== undefined && !openedInside(fd, file, this.root)) {
      closeSync(fd);
      throw outsideWorkspaceError(file, this.root);
    }
    return fd;
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
