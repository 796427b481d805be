import { type BigIntStats, constants } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import { lstat, open, readlink, unlink } from "node:fs/promises";
import path from "node:path";
import { assertPlainFile } from "./file-kind.js";
import {
  type ConfinedOpenFlags,
  isWriteFlags,
  kernelOpenFlags,
  mayCreate,
  mustCreate,
  numericOpenFlags,
  wantsTruncate,
} from "./open-flags.js";
import { isLocatedInside, locateOpenedFile } from "./opened-file-location.js";
import { SandboxViolationError } from "./sandbox-violation-error.js";
import { isInsideDirectory, realWorkspaceRoot } from "./workspace-root.js";

/** Whether a path is about to be read or changed; writes are checked more strictly. */
export type AccessIntent = "read" | "write";

/** A checked path and the workspace real path it was checked against. */
interface ConfinedPath {
  readonly root: string;
  readonly resolved: string;
}

/**
 * Resolves a path a model asked for, for file tools under sandbox `"workspace"`.
 *
 * Relative paths are taken from the workspace; a path spelled outside it is refused without
 * looking at it. Inside, the path is resolved one component at a time, reading symbolic links
 * (an intermediate directory included), so a link counts by where it leads, not by how it is
 * spelled; the walk stops at the first step that leaves the workspace, before anything there is
 * looked at, so a refusal tells nothing about the outside. A link inside whose target is missing
 * is refused: a write through it would create its target.
 *
 * This check alone is racy (the tree can change before the open); open with {@link openConfined}
 * or write with `writeFileAtomic`, which check again on the opened descriptor.
 * @returns The absolute resolved path, inside the workspace's real path.
 * @throws SandboxViolationError `path_outside_workspace`, `symlink_escape`,
 *   `dangling_symlink_refused` or `invalid_path`, with a message naming the path.
 */
export async function resolveInWorkspace(workspace: string, requestedPath: string, intent: AccessIntent): Promise<string> {
  return (await confinePath(workspace, requestedPath, intent)).resolved;
}

/**
 * Opens a file inside the workspace so that no race can make it open a file outside.
 *
 * The path is resolved with {@link resolveInWorkspace}, opened with `O_NOFOLLOW` (a symlink put
 * in its place is not followed) and `O_NONBLOCK` (a FIFO cannot hang the call), and then the
 * descriptor itself is checked: on Linux `/proc/self/fd/N` names what the kernel really opened;
 * elsewhere (macOS) the path is resolved again and must name the same inode (best effort, see
 * `locateOpenedFile`). Only regular files with one link are accepted. `O_TRUNC` is applied
 * after the checks, so a refused open never empties a file.
 * @param mode - Permission bits of a file this call creates.
 * @defaultValue flags `"r"`, mode `0o666` (less the umask)
 * @throws SandboxViolationError when the path or the opened file is not a plain file inside.
 */
export async function openConfined(
  workspace: string,
  requestedPath: string,
  flags: ConfinedOpenFlags = "r",
  mode = 0o666,
): Promise<FileHandle> {
  const numeric = numericOpenFlags(flags);
  const { root, resolved } = await confinePath(workspace, requestedPath, isWriteFlags(numeric) ? "write" : "read");
  const { handle, created } = await openWithoutFollowing(resolved, numeric, mode, requestedPath);
  try {
    const stats = await handle.stat({ bigint: true });
    assertPlainFile(stats, requestedPath);
    await assertOpenedInside(handle, root, resolved, stats, requestedPath);
    if (wantsTruncate(numeric)) await handle.truncate(0);
    return handle;
  } catch (error) {
    await discard(handle, created ? resolved : undefined);
    throw error;
  }
}

/**
 * Closes a refused handle; when this call created the file, removes it where it really is (after
 * a lost race that may be outside the workspace, which must not keep the empty file).
 */
async function discard(handle: FileHandle, createdAt: string | undefined): Promise<void> {
  if (createdAt !== undefined) {
    const stats = await handle.stat({ bigint: true }).catch(() => undefined);
    const location = stats === undefined ? undefined : await locateOpenedFile(handle, createdAt, stats);
    const target = location?.path ?? createdAt;
    await unlink(target).catch(() => undefined);
  }
  await handle.close().catch(() => undefined);
}

/** Resolves and checks `requestedPath`; shared by every confined operation. */
export async function confinePath(workspace: string, requestedPath: string, intent: AccessIntent): Promise<ConfinedPath> {
  assertPathText(requestedPath);
  const root = await realWorkspaceRoot(workspace);
  const lexical = path.resolve(workspace, requestedPath);
  const spelledInside = isInsideDirectory(path.resolve(workspace), lexical) || isInsideDirectory(root, lexical);
  // A path spelled outside is refused before anything outside is looked at: resolving it would
  // tell the model what exists out there and where links lead (`/proc/self/cwd`, `/proc/<pid>/exe`).
  if (!spelledInside) {
    throw new SandboxViolationError(
      "path_outside_workspace",
      `Refused "${requestedPath}": it is outside the workspace ${root}.`,
      {
        data: { path: requestedPath, workspace: root },
        hint: `Use a path inside the workspace ${root}, for example one relative to it.`,
      },
    );
  }
  const walked = await resolveInside(root, lexical, path.resolve(workspace), requestedPath, intent);
  if (walked.inside) return { root, resolved: walked.resolved };
  // Where the link leads is not told to the model (that would reveal the outside's layout); the
  // host still finds it in `data`. A link to something missing outside gets the same answer as a
  // link to something that exists there: nothing outside is ever looked at.
  throw new SandboxViolationError(
    "symlink_escape",
    `Refused "${requestedPath}": a symbolic link in it leads outside the workspace ${root}.`,
    {
      data: { path: requestedPath, resolvedPath: walked.resolved, workspace: root },
      hint: "Symbolic links that leave the workspace cannot be followed; use a path whose real location is inside it.",
    },
  );
}

/** Symbolic links followed while resolving one path, as the kernel allows (`ELOOP` past it). */
const MAX_SYMLINKS = 40;

/**
 * Resolves `lexical` (spelled inside the workspace) one component at a time from the real root,
 * following symbolic links by reading them, and stops at the first step that leaves the
 * workspace, before looking at anything there. Missing components are joined as they are spelled.
 * A link inside whose target is missing (inside) is refused as dangling.
 */
async function resolveInside(
  root: string,
  lexical: string,
  spelledRoot: string,
  requestedPath: string,
  intent: AccessIntent,
): Promise<{ readonly inside: boolean; readonly resolved: string }> {
  const base = isInsideDirectory(spelledRoot, lexical) ? spelledRoot : root;
  const queue = segmentsBelow(base, lexical).map((name) => ({ name, fromLink: undefined as string | undefined }));
  let current = root;
  let links = 0;
  while (queue.length > 0) {
    const { name, fromLink } = queue.shift() as { name: string; fromLink: string | undefined };
    const next = path.join(current, name);
    const entry = await lstat(next).catch((error: unknown) => {
      if (isMissingError(error)) return undefined;
      throw error;
    });
    if (entry === undefined) {
      if (fromLink !== undefined) throw danglingSymlink(requestedPath, fromLink, intent);
      const resolved = path.join(next, ...queue.map((rest) => rest.name));
      return { inside: isInsideDirectory(root, resolved), resolved };
    }
    if (!entry.isSymbolicLink()) {
      current = next;
      continue;
    }
    if (++links > MAX_SYMLINKS) {
      throw new SandboxViolationError("symlink_escape", `Refused "${requestedPath}": too many levels of symbolic links.`, {
        data: { path: requestedPath },
      });
    }
    // Changed since the lstat (no longer a link, or gone): look at the component again.
    const link = await readlink(next).catch((error: unknown) => {
      if (errorCode(error) === "EINVAL" || isMissingError(error)) return undefined;
      throw error;
    });
    if (link === undefined) {
      queue.unshift({ name, fromLink });
      continue;
    }
    const target = path.resolve(current, link);
    if (!isInsideDirectory(root, target)) {
      return { inside: false, resolved: path.join(target, ...queue.map((rest) => rest.name)) };
    }
    queue.unshift(...segmentsBelow(root, target).map((segment) => ({ name: segment, fromLink: next })));
    current = root;
  }
  return { inside: true, resolved: current };
}

/** The normalised components of `target` below `base` (which contains it). */
function segmentsBelow(base: string, target: string): string[] {
  return path
    .relative(base, target)
    .split(path.sep)
    .filter((segment) => segment !== "" && segment !== ".");
}

function assertPathText(requestedPath: unknown): asserts requestedPath is string {
  if (typeof requestedPath !== "string" || requestedPath === "" || requestedPath.includes("\0")) {
    throw new SandboxViolationError(
      "invalid_path",
      `Refused path ${JSON.stringify(requestedPath)}: a path must be a non-empty string without NUL characters.`,
      { data: { path: String(requestedPath) } },
    );
  }
}

function danglingSymlink(requestedPath: string, linkPath: string, intent: AccessIntent): SandboxViolationError {
  return new SandboxViolationError(
    "dangling_symlink_refused",
    `Refused to ${intent} "${requestedPath}": ${linkPath} is a symbolic link to something that does not exist, ` +
      "and following it could create a file anywhere.",
    { data: { path: requestedPath, symlink: linkPath }, hint: "Remove the dangling symbolic link or use another path." },
  );
}

/** Opens without following a final symlink; tells whether this call created the file. */
async function openWithoutFollowing(
  resolved: string,
  flags: number,
  mode: number,
  requestedPath: string,
): Promise<{ handle: FileHandle; created: boolean }> {
  const kernelFlags = kernelOpenFlags(flags);
  const { O_CREAT, O_EXCL } = constants;
  try {
    if (!mayCreate(flags) || mustCreate(flags)) {
      return { handle: await open(resolved, kernelFlags, mode), created: mustCreate(flags) };
    }
    try {
      return { handle: await open(resolved, kernelFlags & ~O_CREAT), created: false };
    } catch (error) {
      if (!isMissingError(error)) throw error;
      return { handle: await open(resolved, kernelFlags | O_EXCL, mode), created: true };
    }
  } catch (error) {
    throw translateOpenError(error, requestedPath, resolved);
  }
}

function translateOpenError(error: unknown, requestedPath: string, resolved: string): unknown {
  const code = errorCode(error);
  if (code === "ELOOP" || code === "EMLINK") {
    return new SandboxViolationError(
      "symlink_escape",
      `Refused "${requestedPath}": ${resolved} is a symbolic link (it was replaced while being opened); links are not followed.`,
      { data: { path: requestedPath, resolvedPath: resolved }, cause: error },
    );
  }
  if (code === "ENXIO") {
    return new SandboxViolationError(
      "special_file_refused",
      `Refused "${requestedPath}": it is a socket or a FIFO without a reader, not a regular file.`,
      { data: { path: requestedPath }, cause: error },
    );
  }
  return error;
}

async function assertOpenedInside(
  handle: FileHandle,
  root: string,
  resolved: string,
  stats: BigIntStats,
  requestedPath: string,
): Promise<void> {
  const location = await locateOpenedFile(handle, resolved, stats);
  if (isLocatedInside(location, root)) return;
  throw new SandboxViolationError(
    "symlink_escape",
    `Refused "${requestedPath}": the file that was opened is outside the workspace ${root} ` +
      "(a directory in its path was replaced by a symbolic link while it was being opened).",
    { data: { path: requestedPath, workspace: root, method: location.method } },
  );
}

function isMissingError(error: unknown): boolean {
  const code = errorCode(error);
  return code === "ENOENT" || code === "ENOTDIR";
}

function errorCode(error: unknown): string | undefined {
  if (typeof error !== "object" || error === null || !("code" in error)) return undefined;
  return typeof error.code === "string" ? error.code : undefined;
}
