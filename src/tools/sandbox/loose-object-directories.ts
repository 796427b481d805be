import type { BigIntStats } from "node:fs";
import { settled } from "./git-protection.js";

/**
 * Loose-object directories (`objects/xx`) the link walk listed and found holding no symbolic
 * link and no directory, by device and inode, with their modification and change times then.
 * Such a directory is listed again only when its times differ: adding, removing or renaming an
 * entry changes a directory's change time, and a command cannot set a change time back
 * (`utimensat` sets it to now; the clock is the host's), so a link planted there, also under a
 * modification time put back with `touch -d`, is always seen. A directory renamed whole into
 * `objects/xx` is known by its inode: it is listed unless it was itself found clean and is
 * unchanged since. A directory that held a link (one leading inside the workspace, kept) is never
 * remembered: what the link leads to may be relinked without touching the directory, so it is
 * judged again after every command. Nothing is remembered whose times were racily recent when it
 * was listed (`gitScanTiming.racyMarginNs`): a file system keeps times in coarse steps, and an
 * entry made just after the listing can leave the same times.
 */
const clean = new Map<string, string>();

/** The most directories remembered (256 per repository); past it the memory starts over. */
export const MAX_REMEMBERED_LOOSE_DIRECTORIES = 65_536;

/** How many loose-object directories the walks of this process listed and skipped as unchanged (tests check the skip works). */
export const looseDirectoryCounts = { listed: 0, skipped: 0 };

const key = (stats: BigIntStats) => `${stats.dev}:${stats.ino}`;
const times = (stats: BigIntStats) => `${stats.mtimeNs}:${stats.ctimeNs}`;

/** True when the loose-object directory `stats` (an `lstat` of its entry) was found clean and is unchanged since. */
export function looseDirectoryUnchanged(stats: BigIntStats): boolean {
  const unchanged = stats.isDirectory() && clean.get(key(stats)) === times(stats);
  if (unchanged) looseDirectoryCounts.skipped++;
  return unchanged;
}

/**
 * Records a listing of a loose-object directory: `stats` is its `fstat` taken before the listing
 * (a change during the listing then shows as a later time), `listedAtNs` the clock before it.
 * Remembered only when it held no link and no directory and its times are settled.
 */
export function rememberLooseDirectory(stats: BigIntStats, listedAtNs: bigint, holdsNothing: boolean): void {
  looseDirectoryCounts.listed++;
  if (!holdsNothing || settled(stats, listedAtNs) === undefined) {
    clean.delete(key(stats));
    return;
  }
  if (clean.size >= MAX_REMEMBERED_LOOSE_DIRECTORIES) clean.clear();
  clean.set(key(stats), times(stats));
}
