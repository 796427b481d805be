import { randomBytes } from "node:crypto";
import type { FileHandle } from "node:fs/promises";
import { rename, unlink } from "node:fs/promises";
import path from "node:path";
import { toFileToolError } from "./file-errors.js";

/** Runs a file operation, turning Node's file errors into tool errors that name the path. */
export async function guardedFileOperation<T>(requested: string, task: () => Promise<T>): Promise<T> {
  try {
    return await task();
  } catch (error) {
    throw toFileToolError(error, requested);
  }
}

/** A temporary name beside `target`, hidden and unique. */
export function temporaryPathBeside(target: string): string {
  return path.join(path.dirname(target), `.${path.basename(target)}.${randomBytes(6).toString("hex")}.part`);
}

/**
 * Fills a freshly opened temporary file, flushes it and renames it over `target`; on any failure
 * removes it, so the target is either replaced whole or left as it was.
 */
export async function replaceThroughTemporary(
  temporary: string,
  target: string,
  handle: FileHandle,
  fill: (handle: FileHandle) => Promise<void>,
  beforeRename: () => Promise<unknown> = async () => undefined,
): Promise<void> {
  try {
    try {
      await fill(handle);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await beforeRename();
    await rename(temporary, target);
  } catch (error) {
    await unlink(temporary).catch(() => undefined);
    throw error;
  }
}
