import type { Stats } from "node:fs";
import { sameFileLook } from "./moved-since-check.js";

/**
 * How a file looked when its bytes were read: the `fstat` of the descriptor the bytes came from
 * (taken before they were read) and the clock just before the read began.
 */
export interface ReadLook {
  /** The opened file's `fstat`, before its bytes were read. */
  readonly stats: Stats;
  /** `Date.now()` before the read's first look at the path. */
  readonly readAt: number;
}

/**
 * A file whose change or modification time is this close to its read (or after it) is "racy",
 * as git calls it: a write right after the read could leave both times as they were (a file
 * system's timestamps are only as fine as its clock tick, 1-10 ms on Linux, or its format's,
 * 1 s on some and 2 s on FAT), so only its bytes tell. Beyond it, any write after the read sets a
 * later change time.
 */
export const RACY_MARGIN_MS = 3000;

/**
 * True when `now` (an `lstat` of the same path) proves the file still holds the bytes read with
 * `look`, without reading them again: same device and inode, same size, same modification and
 * change times, and those times older than the read by more than {@link RACY_MARGIN_MS}. Any
 * write, truncation, rename over, `chmod` or link made after the read sets the change time to
 * the time of that change, later than the one seen; a racy file is never proved (its bytes are
 * read again). False for anything not a regular file.
 */
export function unchangedSinceRead(look: ReadLook, now: Stats | undefined): boolean {
  if (now === undefined || !now.isFile() || !look.stats.isFile() || racy(look)) return false;
  return sameFileLook(look.stats, now);
}

/**
 * True when the file's times are within {@link RACY_MARGIN_MS} of its read (or after it): no
 * `lstat` can then prove it unchanged, so a caller reads it again without looking first.
 */
export function racy(look: ReadLook): boolean {
  return Math.max(look.stats.ctimeMs, look.stats.mtimeMs) > look.readAt - RACY_MARGIN_MS;
}
