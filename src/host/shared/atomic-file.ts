import { randomUUID } from "node:crypto";
import { link, open, rename, rm } from "node:fs/promises";
import { removeStaleTemporaries, temporaryFileDone, temporaryFileName } from "../../tools/fs/stale-temporaries.js";

/** Options of {@link writeTextFileAtomic}. */
export interface AtomicWriteOptions {
  /**
   * Fail with `EEXIST` when the target exists, instead of replacing it (creation that never
   * overwrites, even when two writers race).
   * @defaultValue false
   */
  readonly exclusive?: boolean;
}

/**
 * Writes a whole file or nothing: the content goes to a temporary file in the same directory,
 * is flushed, then renamed (or hard-linked, for exclusive creation) over the target. A reader
 * never sees a half-written profile or skill. A save killed with kill -9 leaves its temporary file
 * (`.<name>.<uuid>.<pid>.tmp`; nothing runs after SIGKILL): the next save of the same target
 * removes those whose writer is gone ({@link removeStaleTemporaries}), never a live writer's.
 * For the host's own directories (profiles, skills, prompt extensions), which the host trusts;
 * the workspace file tools use the sandbox's confined `writeFileAtomic` instead.
 */
export async function writeTextFileAtomic(target: string, content: string, options: AtomicWriteOptions = {}): Promise<void> {
  await removeStaleTemporaries(target).catch(() => undefined);
  const temporary = temporaryFileName(target, randomUUID());
  // Every failure, a write, a flush or a close that fails after them, removes the temporary file.
  try {
    const handle = await open(temporary, "wx", 0o644);
    try {
      await handle.writeFile(content, "utf8");
      await handle.sync();
    } finally {
      await handle.close();
    }
    if (options.exclusive === true) await link(temporary, target);
    else await rename(temporary, target);
  } finally {
    await rm(temporary, { force: true }).finally(() => temporaryFileDone(temporary));
  }
}

/** True for a Node error with this `code` (`ENOENT`, `EEXIST`, ...). */
export function hasErrorCode(error: unknown, code: string): boolean {
  return typeof error === "object" && error !== null && (error as { code?: unknown }).code === code;
}
