import { lstat, readdir, rm } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

// Shared by every atomic save of the host's own files (MCP trust and credential files, host
// stores' profiles, skills and prompt extensions): a save killed with kill -9 between its
// temporary file's creation and its rename leaves that file (nothing runs after SIGKILL); the
// next save of the same target removes the dead writers' ones.

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

/**
 * The temporary files this process is writing now, shared by every copy of this module in the
 * process (the ESM and CJS builds loaded at once): a temporary named with this process's own pid
 * and not in this set was left by an earlier process that had the same pid (a container's node is
 * pid 1 at every start), so `kill(pid, 0)` answering "alive" says nothing about it.
 */
const writingNow: Set<string> = (() => {
  const key = Symbol.for("agent-tool-catalog.temporaries-being-written.v1");
  const holder = globalThis as { [key]?: Set<string> };
  holder[key] ??= new Set<string>();
  return holder[key];
})();

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
 * save's own pattern for this target (`.<name>.<uuid>.<pid>.tmp`), regular files (not links)
 * owned by this user, whose writer process is gone and that are old enough (see above). Anything
 * else beside the target, and a save still running, is left alone. Best effort: a cleanup that
 * fails does not fail the save.
 * @returns how many were removed.
 */
export async function removeStaleTemporaries(target: string, now = Date.now()): Promise<number> {
  const pattern = temporaryPattern(target);
  const directory = dirname(target);
  const uid = process.geteuid?.();
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
      pid === undefined
        ? age >= UNNAMED_WRITER_TEMPORARY_AGE_MS
        : age >= DEAD_WRITER_TEMPORARY_AGE_MS && (pid === process.pid ? !writingNow.has(file) : !isAlive(pid));
    if (!stale) continue;
    await rm(file, { force: true }).then(
      () => removed++,
      () => undefined,
    );
  }
  return removed;
}

/**
 * The temporary file name a save of `target` writes first: `.<name>.<uuid>.<pid>.tmp` beside it,
 * the pattern {@link removeStaleTemporaries} recognises (the pid says whether its writer lives).
 * The name counts as being written by this process until {@link temporaryFileDone} is called
 * with it (in the save's `finally`).
 */
export function temporaryFileName(target: string, uuid: string): string {
  const temporary = join(dirname(target), `.${basename(target)}.${uuid}.${process.pid}.tmp`);
  writingNow.add(temporary);
  return temporary;
}

/** Ends what {@link temporaryFileName} began: the save of `temporary` is over (renamed or failed). */
export function temporaryFileDone(temporary: string): void {
  writingNow.delete(temporary);
}
