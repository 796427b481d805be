import type { Stats } from "node:fs";
import { closeSync, constants, fstatSync, lstatSync, openSync, readSync } from "node:fs";
import { ToolError } from "agent-tool-catalog";
import { specialFileKind } from "../../errors/special-file-kind.js";
import { assertPlainFile } from "../sandbox/file-kind.js";
import { SandboxViolationError } from "../sandbox/sandbox-violation-error.js";
import { EDIT_MAX_BYTES, tooLargeToEdit } from "./edit-size-limit.js";
import type { ParentEntry } from "./file-scope.js";
import type { ReadLook } from "./read-look.js";

/** Flags of every read: a final symlink is not followed, a FIFO cannot block the open. */
export const READ_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

/** Refuses what is not a regular file, in every scope (a FIFO or device could block or never end). */
export function assertReadableFile(stats: Stats, requested: string, confined: boolean): void {
  const special = specialFileKind(stats);
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
 * A plain file's content through its parent's verified handle, with the entry's `lstat` (what a
 * replacement keeps: its mode); `undefined` when absent. Throws on anything else (a symlink, a
 * special file, a directory): the caller then reads the path alone for the exact answer. The
 * special-file refusal comes from `lstat`, before any open (opening some devices has effects);
 * the open cannot follow a final symlink nor block on a FIFO; the opened file is checked again.
 *
 * Synchronous: batches read many small files in one tight loop (see `inSyncSlices`), where a
 * thread-pool round trip per step would cost more than the step.
 *
 * `expected`: the bytes the caller will compare the content with (a check that a file is still
 * what a plan saw). When the file holds exactly those bytes, `expected` itself is returned and no
 * new buffer is made: a 500-file commit otherwise allocates its whole content a second time only
 * to find it equal.
 *
 * `look`: the opened file's `fstat` and the time the read began, by which a later check can
 * prove the file unchanged without reading it again (see `unchangedSinceRead`).
 */
export function readEntryWithStatsSync(
  parent: ParentEntry,
  requested: string,
  confined: boolean,
  expected?: Buffer,
): { readonly bytes: Buffer; readonly stats: Stats; readonly look: ReadLook } | undefined {
  const entry = parent.at(parent.name);
  const readAt = Date.now();
  const stats = lstatSync(entry, { throwIfNoEntry: false });
  if (stats === undefined) return undefined;
  assertReadableFile(stats, requested, confined);
  const fd = openSync(entry, READ_FLAGS);
  try {
    const opened = fstatSync(fd);
    assertReadableFile(opened, requested, confined);
    // Refused on its size, before any byte is read: a 1 TiB sparse file is not read whole.
    if (opened.size > EDIT_MAX_BYTES) throw tooLargeToEdit(requested, opened.size);
    const bytes =
      expected !== undefined && opened.size === expected.byteLength && opened.size < SCRATCH_LIMIT
        ? readComparedSync(fd, expected)
        : readAllSync(fd, opened.size);
    return { bytes, stats, look: { stats: opened, readAt } };
  } finally {
    closeSync(fd);
  }
}

/**
 * The whole file from an open descriptor whose size is known: one read when the size is still
 * right (a file growing meanwhile is read on to its end, one that shrank until a read returns
 * nothing), without the second `fstat` of `readFile`.
 */
function readAllSync(fd: number, size: number): Buffer {
  const chunks: Buffer[] = [];
  let total = 0;
  let room = size + 1;
  for (;;) {
    const buffer = Buffer.allocUnsafe(room);
    const bytesRead = readSync(fd, buffer, 0, room, total);
    if (bytesRead === 0) break;
    chunks.push(buffer.subarray(0, bytesRead));
    total += bytesRead;
    if (bytesRead < room && total >= size) break;
    room = Math.max(64 * 1024, size + 1 - total);
  }
  return chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, total);
}

/** Files up to this size are compared through {@link scratch}; larger ones are read whole. */
const SCRATCH_LIMIT = 1024 * 1024;
/** One reused read buffer for {@link readComparedSync} (synchronous: never shared by two reads at once). */
let scratch = Buffer.allocUnsafe(64 * 1024);

/**
 * The file's content when it may equal `expected` (same size): read into the reused scratch
 * buffer, and `expected` itself when equal; else a copy of what was read. One byte more than the
 * size is asked for, so a file that grew meanwhile is seen as different; one that did is read
 * again as a whole.
 */
function readComparedSync(fd: number, expected: Buffer): Buffer {
  const room = expected.byteLength + 1;
  if (scratch.byteLength < room)
    scratch = Buffer.allocUnsafe(Math.min(SCRATCH_LIMIT + 1, Math.max(room, scratch.byteLength * 2)));
  let total = 0;
  while (total < room) {
    const asked = room - total;
    const bytesRead = readSync(fd, scratch, total, asked, total);
    total += bytesRead;
    // A regular file's read returns less than asked only at its end: no second read to find that
    // end (one read per file of a 500-file check instead of two).
    if (bytesRead < asked) break;
  }
  if (total >= room) return readAllSync(fd, room);
  const read = scratch.subarray(0, total);
  return read.equals(expected) ? expected : Buffer.from(read);
}
