// How many descriptors this process may hold, so that batches of file work size their windows of
// open files to it: a fixed window of 256 open temporary files failed every apply_patch of more
// files than the limit allowed (`ulimit -n` 240, or macOS's default 256) as too_many_open_files.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";

/** Assumed when the limit cannot be read: macOS's default soft limit. */
const ASSUMED_LIMIT = 256;

let cached: number | undefined;

function readLimit(): number {
  try {
    // Linux: "Max open files            1024                 1048576              files".
    const line = readFileSync("/proc/self/limits", "utf8")
      .split("\n")
      .find((entry) => entry.startsWith("Max open files"));
    const soft = line?.split(/\s{2,}/)[1];
    if (soft === "unlimited") return Number.POSITIVE_INFINITY;
    const value = Number(soft);
    if (Number.isSafeInteger(value) && value > 0) return value;
  } catch {
    // not Linux: ask a shell, which inherits this process's limit
  }
  try {
    const out = execFileSync("/bin/sh", ["-c", "ulimit -n"], { encoding: "utf8", timeout: 2_000 }).trim();
    if (out === "unlimited") return Number.POSITIVE_INFINITY;
    const value = Number(out);
    if (Number.isSafeInteger(value) && value > 0) return value;
  } catch {
    // keep the assumption
  }
  return ASSUMED_LIMIT;
}

/** The soft limit on open descriptors (`RLIMIT_NOFILE`), read once per process. */
export function openFileLimit(): number {
  cached ??= readLimit();
  return cached;
}

/**
 * The most files one batch should hold open at once: an eighth of the open-file limit (the rest
 * is left to the directory handles a batch holds and to everything else in the process), at least
 * `min` and at most `max`.
 */
export function openFileWindow(max: number, min = 8): number {
  return Math.max(min, Math.min(max, Math.floor(openFileLimit() / 8)));
}

/**
 * The most directory handles one batch of file work should hold at once: a quarter of the
 * open-file limit (a patch's reads keep up to this many open for its commit, the commit opens up
 * to this many more, and its flush window takes an eighth), at least 16. A change over more
 * directories than this is done in groups of directories (see `directoryGroups`).
 */
export function directoryWindow(): number {
  return Math.max(16, Math.floor(openFileLimit() / 4));
}

/**
 * `items` split, in order of first appearance of their directories, into groups of at most
 * `window` distinct directories (`directoryOf` gives an item's directory: its path's lexical
 * parent, which bounds the distinct real parents the group opens, each path having one). One
 * group (the usual case) is `[items]` itself.
 */
export function directoryGroups<T>(items: readonly T[], directoryOf: (item: T) => string, window: number): (readonly T[])[] {
  const groupOf = new Map<string, number>();
  for (const item of items) {
    const directory = directoryOf(item);
    if (!groupOf.has(directory)) groupOf.set(directory, Math.floor(groupOf.size / window));
  }
  if (groupOf.size <= window) return [items];
  const groups: T[][] = Array.from({ length: Math.ceil(groupOf.size / window) }, () => []);
  for (const item of items) groups[groupOf.get(directoryOf(item)) as number]?.push(item);
  return groups;
}
