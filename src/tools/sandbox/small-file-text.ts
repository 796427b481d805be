import { closeSync, constants, fstatSync, readSync } from "node:fs";
import { openSync, pathFromBytes } from "./byte-paths.js";

/**
 * A small regular file's text, read through one descriptor opened without following a
 * link and without blocking, checked to be a regular file of at most `maxBytes`; `undefined`
 * otherwise. The host reads files a sandboxed command may be swapping (git pointer files, the
 * sequencer's `autostash`) on its own thread: a named pipe swapped in between a check by path and
 * the read blocked the host's whole event loop until a signal came. Decoded as the sandbox's paths
 * are (`pathFromBytes`: a byte that is not valid UTF-8 kept, escaped), since what it reads is git
 * state naming paths: decoded to U+FFFD, `gitdir: ../host<0xff>` named a missing entry, judged
 * inside, while git opened the link `host<0xff>` to a host repository (round 45).
 */
export function readSmallFileText(file: string, maxBytes: number): string | undefined {
  const bytes = readSmallFileBytes(file, maxBytes);
  return typeof bytes === "string" ? undefined : pathFromBytes(bytes);
}

/**
 * As {@link readSmallFileText}, but says why there is no text: `"absent"` (no entry) or
 * `"unreadable"` (a link, a named pipe, a directory, over `maxBytes`, or a read error), for
 * callers that treat a missing file and something else in its place differently (a lock, a log).
 */
export function readSmallFileTextOrWhyNot(file: string, maxBytes: number): string | "absent" | "unreadable" {
  const bytes = readSmallFileBytes(file, maxBytes);
  return typeof bytes === "string" ? bytes : bytes.toString("utf8");
}

/**
 * The bytes of a regular file of at most `maxBytes`, read as {@link readSmallFileText} reads
 * (one descriptor, no link followed, no blocking); otherwise why not: `"absent"` (no entry),
 * `"unreadable"` (a link, a named pipe, a directory, over `maxBytes`, or a read error).
 */
export function readSmallFileBytes(file: string, maxBytes: number): Buffer | "absent" | "unreadable";
/**
 * As above, but `"refused"` (nothing read) for a regular file whose size `refuse` rejects: the
 * caller tells a file too large for what is left of its budget from one too large in itself.
 */
export function readSmallFileBytes(
  file: string,
  maxBytes: number,
  refuse: (size: number) => boolean,
): Buffer | "absent" | "unreadable" | "refused";
export function readSmallFileBytes(
  file: string,
  maxBytes: number,
  refuse?: (size: number) => boolean,
): Buffer | "absent" | "unreadable" | "refused" {
  return readRegularFile(file, (descriptor, size) => {
    if (refuse?.(size) === true) return "refused";
    return size > maxBytes ? "unreadable" : readBytes(descriptor, size);
  });
}

/**
 * The text of a regular file's first `maxBytes` bytes, whatever its size, read and decoded as
 * {@link readSmallFileText} reads (one descriptor, no link followed, no blocking); `undefined` for
 * anything but a regular file. For git's pointer files: git reads them whole and drops trailing
 * line breaks, so `gitdir: ../hostlink` followed by 70,000 line breaks is a pointer to git, which
 * a read refused over its bound left unjudged (round 45); a path git can use is far shorter than
 * the bound (the kernel's 4,096 bytes), so what lies past it is line breaks or follows a NUL.
 */
export function readFileTextPrefix(file: string, maxBytes: number): string | undefined {
  const bytes = readRegularFile(file, (descriptor) => readBytes(descriptor, maxBytes));
  return typeof bytes === "string" ? undefined : pathFromBytes(bytes);
}

/**
 * Opens `file` as every reader here does (no link followed, no blocking: a named pipe swapped in
 * must not hold the host's thread) and hands a regular file's descriptor and size to `read`,
 * closing it after; otherwise why not: `"absent"` (no entry) or `"unreadable"` (a link, a named
 * pipe, a directory, or an error).
 */
function readRegularFile<T>(file: string, read: (descriptor: number, size: number) => T): T | "absent" | "unreadable" {
  let descriptor: number;
  try {
    descriptor = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ENOENT" ? "absent" : "unreadable";
  }
  try {
    const stats = fstatSync(descriptor);
    return stats.isFile() ? read(descriptor, stats.size) : "unreadable";
  } catch {
    return "unreadable";
  } finally {
    closeSync(descriptor);
  }
}

/** Up to `count` bytes from the start of `descriptor`: only the bytes read (the buffer is not zero-filled first). */
function readBytes(descriptor: number, count: number): Buffer {
  const buffer = Buffer.allocUnsafe(count);
  return buffer.subarray(0, readSync(descriptor, buffer, 0, count, 0));
}
