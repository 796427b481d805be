import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";

/**
 * A small regular file's text (UTF-8), read through one descriptor opened without following a
 * link and without blocking, checked to be a regular file of at most `maxBytes`; `undefined`
 * otherwise. The host reads files a sandboxed command may be swapping (git pointer files, the
 * sequencer's `autostash`) on its own thread: a named pipe swapped in between a check by path and
 * the read blocked the host's whole event loop until a signal came.
 */
export function readSmallFileText(file: string, maxBytes: number): string | undefined {
  let descriptor: number;
  try {
    descriptor = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    const stats = fstatSync(descriptor);
    if (!stats.isFile() || stats.size > maxBytes) return undefined;
    const buffer = Buffer.alloc(stats.size);
    return buffer.subarray(0, readSync(descriptor, buffer, 0, stats.size, 0)).toString("utf8");
  } catch {
    return undefined;
  } finally {
    closeSync(descriptor);
  }
}
