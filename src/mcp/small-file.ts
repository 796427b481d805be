import { randomUUID } from "node:crypto";
import { constants } from "node:fs";
import { open, rename, rm } from "node:fs/promises";
import { ConfigurationError } from "agent-tool-catalog";
import { countOf } from "../errors/count-of.js";
import { removeStaleTemporaries, temporaryFileDone, temporaryFileName } from "../tools/fs/stale-temporaries.js";

/** What {@link readSmallRegularFile} reports a refused file as. */
export interface SmallFileLimits {
  /** The most bytes the file may hold. */
  readonly maxBytes: number;
  /** The `ConfigurationError` code for a file that is not a small regular file. */
  readonly code: string;
}

/**
 * Reads a config or state file whole, or `undefined` when it does not exist. Only a regular file
 * of at most `maxBytes` is read: a FIFO would block the read forever (it is opened non-blocking
 * and refused before any read), and a symlink to `/dev/zero` or to a huge file would be read into
 * memory up to Node's 2 GiB limit. A workspace's `.mcp.json` comes from a cloned repository, which
 * can hold such a symlink, and it is read before anyone trusted it.
 *
 * @throws ConfigurationError with `limits.code` when the path is not a regular file or is larger.
 */
export async function readSmallRegularFile(path: string, limits: SmallFileLimits): Promise<Buffer | undefined> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw refused(path, "is not a regular file", limits);
    if (stats.size > limits.maxBytes) throw refused(path, `is larger than ${countOf(limits.maxBytes, "byte")}`, limits);
    // Read one byte past the limit: a file that grew since the stat is refused, not cut.
    const buffer = Buffer.alloc(limits.maxBytes + 1);
    let length = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, null);
      if (bytesRead === 0) break;
      length += bytesRead;
      if (length > limits.maxBytes) throw refused(path, `is larger than ${countOf(limits.maxBytes, "byte")}`, limits);
    }
    return buffer.subarray(0, length);
  } finally {
    await handle.close();
  }
}

function refused(path: string, problem: string, limits: SmallFileLimits): ConfigurationError {
  return new ConfigurationError(limits.code, `${path} ${problem}.`, { data: { path } });
}

/**
 * Replaces a file with `text` whole or not at all: the text goes to a new temporary file beside it
 * (mode 0600, named `.<name>.<uuid>.<pid>.tmp`), is flushed, then renamed over the target. Any
 * failure (a full or read-only disk, no descriptors left) removes the temporary file, so failed
 * saves do not pile up beside the target and eat the space that a later save needs; those of
 * writers killed mid-save are removed by the next save ({@link removeStaleTemporaries}).
 */
export async function replaceFileAtomically(path: string, text: string): Promise<void> {
  await removeStaleTemporaries(path).catch(() => undefined);
  const temporary = temporaryFileName(path, randomUUID());
  try {
    const handle = await open(temporary, "wx", 0o600);
    try {
      await handle.writeFile(text, "utf8");
      // The mode of open is masked by the umask; make sure.
      await handle.chmod(0o600);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, path);
  } finally {
    // Gone after the rename; a cleanup that fails must not hide why the save failed.
    await rm(temporary, { force: true }).catch(() => undefined);
    temporaryFileDone(temporary);
  }
}
