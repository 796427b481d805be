import { lstatSync, type Stats } from "node:fs";

/** A target of a transaction as the check under the locks saw it. */
export interface CheckedTarget {
  /** The path the transaction renames over (through its verified directory). */
  readonly entry: string;
  /** Its `lstat` at the check (`null`: absent); `undefined` when the check did not look at it. */
  readonly seen: Stats | null | undefined;
}

/**
 * Same file (device and inode), same size, same modification and change times: nothing wrote to
 * it between the two looks (within the file system's timestamp resolution).
 */
export function sameFileLook(before: Stats, now: Stats): boolean {
  return (
    before.ino === now.ino &&
    before.dev === now.dev &&
    before.size === now.size &&
    before.mtimeMs === now.mtimeMs &&
    before.ctimeMs === now.ctimeMs
  );
}

/** {@link sameFileLook}, or absent both times. */
function sameLook(before: Stats | null, now: Stats | undefined): boolean {
  if (before === null || now === undefined) return before === null && now === undefined;
  return sameFileLook(before, now);
}

/**
 * True when some target's `lstat` is no longer what the check under the locks saw. Writers that
 * take no lock (a shell's `>>`, an editor) can change a file after that check; writing and
 * flushing the temporary files takes milliseconds, so a transaction looks again just before its
 * commit point, and only a change in this last look's few microseconds can still be overwritten.
 * A write within the same timestamp that keeps the size and inode goes unseen (file systems with
 * coarse timestamps).
 */
export function movedSinceCheck(targets: readonly CheckedTarget[]): boolean {
  for (const { entry, seen } of targets) {
    if (seen === undefined) continue;
    if (!sameLook(seen, lstatSync(entry, { throwIfNoEntry: false }))) return true;
  }
  return false;
}
