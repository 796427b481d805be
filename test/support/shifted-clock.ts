/**
 * A wall clock shifted by a fixed number of ms for a test's redis-server (see `clockShiftMs` in
 * test/support/redis-server.ts) and, by test/redis/fixtures/skewed-clock.mjs, for the Node
 * processes that share it: a cron test puts all of them a few seconds before a minute boundary,
 * so it waits seconds for its minute (5-field cron has no seconds) instead of up to one.
 * The library is compiled with `cc` (the "cc" capability: a suite using it declares it, so a
 * machine without a compiler skips it loudly, and the strict flag fails it).
 */
import { execFileSync } from "node:child_process";
import path from "node:path";

const SOURCE = path.join(import.meta.dirname, "shifted-clock.c");

/** A minute in ms. */
export const MINUTE_MS = 60_000;

/** Compiles the preloadable library into `dir` and returns its path (for `LD_PRELOAD`). */
export function compileShiftedClock(dir: string): string {
  const library = path.join(dir, "shifted-clock.so");
  execFileSync("cc", ["-O1", "-shared", "-fPIC", "-o", library, SOURCE, "-ldl"], { stdio: "pipe" });
  return library;
}

/**
 * The shift (0 to a minute, in ms) that puts a clock `leadMs` before a minute boundary now:
 * `(now + shift) % MINUTE_MS === MINUTE_MS - leadMs`.
 */
export function clockShiftBeforeMinute(leadMs: number, now = Date.now()): number {
  return (((-now - leadMs) % MINUTE_MS) + MINUTE_MS) % MINUTE_MS;
}
