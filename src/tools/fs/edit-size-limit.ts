import { createHash } from "node:crypto";
import type { Stats } from "node:fs";
import { ToolError } from "agent-tool-catalog";
import { byteCount } from "../sandbox/byte-count.js";
import type { FileScope } from "./file-scope.js";
import { guardedFileOperation } from "./file-scope-helpers.js";

/**
 * The largest file the editing tools (edit, replace, apply_patch, write over an existing file,
 * undo) read, and the largest whose version is a hash of its content. A larger file (a command
 * can make a 1 TiB sparse one in an instant) would cost host time in proportion to its size on
 * every call: edits refuse it, and `read` and `file_inspect` give it an identity version
 * ({@link identityVersion}) and read only the lines they show.
 */
export const EDIT_MAX_BYTES = 64 * 1024 * 1024;

/**
 * The version of a file over {@link EDIT_MAX_BYTES}: a hash of its identity (device, inode), size,
 * and change times, not of its content. Any write changes the status-change time, which a command
 * cannot set back, so the version still changes when the content does; no edit accepts it.
 */
export function identityVersion(stats: Stats): string {
  const { dev, ino, size, mtimeMs, ctimeMs } = stats;
  const identity = `identity:${dev}:${ino}:${size}:${mtimeMs}:${ctimeMs}`;
  return `v_${createHash("sha256").update(identity).digest("hex").slice(0, 16)}`;
}

/** The refusal of a file over {@link EDIT_MAX_BYTES} by a tool that must read it whole. */
export function tooLargeToEdit(requested: string, size: number): ToolError {
  return new ToolError(
    "too_large",
    `"${requested}" is ${byteCount(size)}, over the ${byteCount(EDIT_MAX_BYTES)} (64 MiB) the file tools edit (a file this large is read only in windows). Nothing was changed.`,
    {
      hint: "Change it with a command in bash (sed -i, truncate, rm), or read a window of it with read offset/limit.",
      data: { path: requested, size, limit: EDIT_MAX_BYTES },
    },
  );
}

/**
 * A file's whole content for a tool that edits it, refused with {@link tooLargeToEdit} when over
 * {@link EDIT_MAX_BYTES} on its size before any byte is read (and when it grew past it while read).
 */
export async function readForEdit(scope: FileScope, requested: string): Promise<Buffer> {
  const handle = await scope.openRead(requested);
  return guardedFileOperation(requested, async () => {
    try {
      const { size } = await handle.stat();
      if (size > EDIT_MAX_BYTES) throw tooLargeToEdit(requested, size);
      const bytes = await handle.readFile();
      if (bytes.length > EDIT_MAX_BYTES) throw tooLargeToEdit(requested, bytes.length);
      return bytes;
    } finally {
      await handle.close();
    }
  });
}
