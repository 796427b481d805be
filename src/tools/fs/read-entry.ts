import type { Stats } from "node:fs";
import { constants } from "node:fs";
import { lstat, open } from "node:fs/promises";
import { ToolError } from "agent-tool-catalog";
import { assertPlainFile } from "../sandbox/file-kind.js";
import { SandboxViolationError } from "../sandbox/sandbox-violation-error.js";
import type { ParentEntry } from "./file-scope.js";

/** Flags of every read: a final symlink is not followed, a FIFO cannot block the open. */
export const READ_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

function specialKind(stats: Stats): string | undefined {
  if (stats.isFIFO()) return "named pipe (FIFO)";
  if (stats.isSocket()) return "socket";
  if (stats.isCharacterDevice()) return "character device";
  if (stats.isBlockDevice()) return "block device";
  return undefined;
}

/** Refuses what is not a regular file, in every scope (a FIFO or device could block or never end). */
export function assertReadableFile(stats: Stats, requested: string, confined: boolean): void {
  const special = specialKind(stats);
  if (special !== undefined) {
    throw new SandboxViolationError("special_file_refused", `Refused "${requested}": it is a ${special}, not a regular file.`, {
      data: { path: requested, kind: special },
    });
  }
  if (stats.isDirectory()) {
    throw new ToolError("is_a_directory", `"${requested}" is a directory, not a file.`, { hint: "Use ls to list a directory." });
  }
  if (confined) assertPlainFile(stats, requested);
}

/**
 * A plain file's content through its parent's verified handle; `undefined` when absent. Throws on
 * anything else (a symlink, a special file, a directory): the caller then reads the path alone
 * for the exact answer.
 */
export async function readEntry(parent: ParentEntry, requested: string, confined: boolean): Promise<Buffer | undefined> {
  return (await readEntryWithStats(parent, requested, confined))?.bytes;
}

/** {@link readEntry}, with the entry's `lstat` (what a replacement keeps: its mode). */
export async function readEntryWithStats(
  parent: ParentEntry,
  requested: string,
  confined: boolean,
): Promise<{ readonly bytes: Buffer; readonly stats: Stats } | undefined> {
  const entry = parent.at(parent.name);
  const stats = await lstat(entry).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return undefined;
    throw error;
  });
  if (stats === undefined) return undefined;
  // Cheap first refusal of special files, before any open (opening some devices has effects).
  assertReadableFile(stats, requested, confined);
  const handle = await open(entry, READ_FLAGS);
  try {
    const opened = await handle.stat();
    assertReadableFile(opened, requested, confined);
    return { bytes: await readAll(handle, opened.size), stats };
  } finally {
    await handle.close();
  }
}

/**
 * The whole file from an open handle whose size is known: one read when the size is still right
 * (a file growing meanwhile is read on to its end), without the second `fstat` of `readFile`.
 */
async function readAll(handle: Awaited<ReturnType<typeof open>>, size: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  let room = size + 1;
  for (;;) {
    const buffer = Buffer.allocUnsafe(room);
    const { bytesRead } = await handle.read(buffer, 0, room, total);
    if (bytesRead === 0) break;
    chunks.push(buffer.subarray(0, bytesRead));
    total += bytesRead;
    // Short of the room asked, at or past the size the file had: its end (a file that shrank is
    // read on until a read returns nothing).
    if (bytesRead < room && total >= size) break;
    room = Math.max(64 * 1024, size + 1 - total);
  }
  return chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, total);
}
