import { randomUUID } from "node:crypto";
import { constants } from "node:fs";
import { lstat, open, readdir, rename, rm } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { ConfigurationError } from "agent-tool-catalog";

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
    if (stats.size > limits.maxBytes) throw refused(path, `is larger than ${limits.maxBytes} bytes`, limits);
    // Read one byte past the limit: a file that grew since the stat is refused, not cut.
    const buffer = Buffer.alloc(limits.maxBytes + 1);
    let length = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, null);
      if (bytesRead === 0) break;
      length += bytesRead;
      if (length > limits.maxBytes) throw refused(path, `is larger than ${limits.maxBytes} bytes`, limits);
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
 * A writer's temporary file is removed by a later save only once it is this old (by mtime) and
 * its writer is gone. The writer's pid is in the name; the age keeps a writer in another pid
 * namespace (a container sharing the directory), whose pid means nothing here, from losing a
 * temporary file mid-save: a save writes a few KiB and renames it at once.
 */
const DEAD_WRITER_TEMPORARY_AGE_MS = 10_000;
/** Temporary files named before the writer's pid was in the name (no way to ask): only when this old. */
const UNNAMED_WRITER_TEMPORARY_AGE_MS = 10 * 60_000;
const UUID = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}";

function temporaryPattern(target: string): RegExp {
  const escaped = basename(target).replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(`^\\.${escaped}\\.${UUID}(?:\\.([1-9][0-9]{0,9}))?\\.tmp$`);
}

/** True unless `kill(pid, 0)` says there is no such process (EPERM: it exists, someone else's). */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== "ESRCH";
  }
}

/**
 * Removes the temporary files a killed save of `target` left (`kill -9` between the temporary's
 * creation and its rename; nothing runs after SIGKILL, so they stayed forever): only names of this
 * module's own pattern for this target (`.<name>.<uuid>.<pid>.tmp`), regular files (not links)
 * owned by this user, whose writer process is gone and that are old enough (see above). Anything
 * else beside the target, and a save still running, is left alone. Best effort: a cleanup that
 * fails does not fail the save.
 * @returns how many were removed.
 */
export async function removeStaleTemporaries(target: string, now = Date.now()): Promise<number> {
  const pattern = temporaryPattern(target);
  const directory = dirname(target);
  const uid = process.getuid?.();
  let removed = 0;
  for (const name of await readdir(directory).catch(() => [] as string[])) {
    const match = pattern.exec(name);
    if (match === null) continue;
    const file = join(directory, name);
    const stats = await lstat(file).catch(() => undefined);
    if (stats === undefined || !stats.isFile() || (uid !== undefined && stats.uid !== uid)) continue;
    const pid = match[1] === undefined ? undefined : Number(match[1]);
    const age = now - stats.mtimeMs;
    const stale =
      pid === undefined ? age >= UNNAMED_WRITER_TEMPORARY_AGE_MS : age >= DEAD_WRITER_TEMPORARY_AGE_MS && !isAlive(pid);
    if (!stale) continue;
    await rm(file, { force: true }).then(
      () => removed++,
      () => undefined,
    );
  }
  return removed;
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
  const temporary = join(dirname(path), `.${basename(path)}.${randomUUID()}.${process.pid}.tmp`);
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
  }
}
