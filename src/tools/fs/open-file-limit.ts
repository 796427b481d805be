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
