import { randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { lstat, open, rename, unlink } from "node:fs/promises";
import path from "node:path";
import { assertPlainFile } from "./file-kind.js";
import { confinePath, openConfined } from "./path-confinement.js";
import { SandboxViolationError } from "./sandbox-violation-error.js";

/** Options of {@link writeFileAtomic}. */
export interface WriteFileAtomicOptions {
  /**
   * Permission bits of the written file.
   * @defaultValue the existing file's mode; for a new file `0o666` less the umask
   */
  readonly mode?: number;
}

const TEMP_NAME_LIMIT = 100;

/**
 * Replaces a workspace file in one step, so a reader (or a crash) sees the old content or the new,
 * never half of it, and a symlink in the file's place is replaced rather than followed out of the
 * workspace.
 *
 * The data goes to a new temporary file in the same directory (opened with {@link openConfined},
 * so it is verified to be inside), is flushed with `fsync`, keeps the existing file's mode, and is
 * renamed over the target; the directory is flushed too. On any failure the temporary file is
 * removed. Existing hard-linked or special files are refused like {@link openConfined} does.
 * Ownership is not carried over: the new file belongs to the user who writes it.
 * @returns The absolute path written.
 * @throws SandboxViolationError when the path is not a plain file inside the workspace.
 */
export async function writeFileAtomic(
  workspace: string,
  requestedPath: string,
  data: string | Uint8Array,
  options: WriteFileAtomicOptions = {},
): Promise<string> {
  const { root, resolved } = await confinePath(workspace, requestedPath, "write");
  const mode = options.mode ?? (await existingMode(resolved, requestedPath));
  const temporary = path.join(path.dirname(resolved), temporaryName(path.basename(resolved)));
  const handle = await openConfined(root, temporary, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, mode ?? 0o666);
  try {
    try {
      await handle.writeFile(data);
      if (mode !== undefined) await handle.chmod(mode);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, resolved);
  } catch (error) {
    await unlink(temporary).catch(() => undefined);
    throw error;
  }
  await syncDirectory(path.dirname(resolved));
  return resolved;
}

/** The mode to keep, or `undefined` for a new file; refuses what must not be replaced. */
async function existingMode(resolved: string, requestedPath: string): Promise<number | undefined> {
  let stats: Awaited<ReturnType<typeof lstat>>;
  try {
    stats = await lstat(resolved);
  } catch (error) {
    if (typeof error === "object" && error !== null && "code" in error && error.code === "ENOENT") return undefined;
    throw error;
  }
  if (stats.isSymbolicLink()) {
    throw new SandboxViolationError(
      "symlink_escape",
      `Refused to write "${requestedPath}": it became a symbolic link while it was being checked.`,
      { data: { path: requestedPath } },
    );
  }
  assertPlainFile(stats, requestedPath);
  // Set-user-id and set-group-id bits are not carried to the new content (a write by root would
  // otherwise leave a set-id program with content the model chose).
  return stats.mode & 0o1777;
}

function temporaryName(base: string): string {
  return `.${base.slice(0, TEMP_NAME_LIMIT)}.${randomBytes(6).toString("hex")}.tmp`;
}

/** Flushes the rename to disk; some platforms cannot fsync a directory, which is not an error. */
async function syncDirectory(directory: string): Promise<void> {
  const handle = await open(directory, constants.O_RDONLY | (constants.O_DIRECTORY ?? 0)).catch(() => undefined);
  if (handle === undefined) return;
  try {
    await handle.sync();
  } catch {
    // EINVAL/EISDIR on platforms that do not sync directories: the rename itself is done.
  } finally {
    await handle.close();
  }
}
