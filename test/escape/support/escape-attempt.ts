/**
 * The escape-attempt suite's vocabulary. Each attempt is one test titled `[escape:<class>] ...`:
 * it performs a real attack through the public API (a hostile model's arguments to `run.call`, a
 * hostile workspace, a hostile handler or host) and asserts that it did not get out. A failing
 * attempt is an escape. Every attempt also runs its positive control (the same action where it
 * is allowed, or with the protection off) so that "denied" never means "broken setup".
 *
 * The summary reporter (test/support/summary-reporter.ts) counts them and prints
 * `escape attempts=N escaped=M` per class and in total.
 */
import { it } from "vitest";

/** The classes of attempts, as the sandbox guarantees are grouped in the README. */
export type EscapeClass =
  | "paths"
  | "races"
  | "git-metadata"
  | "descriptors"
  | "binaries"
  | "network"
  | "privileges"
  | "child-runs"
  | "approvals"
  | "processes"
  | "environment"
  | "resources"
  | "tool-lists";

/** The title tag the reporter counts. */
export function escapeTitle(escapeClass: EscapeClass, title: string): string {
  return `[escape:${escapeClass}] ${title}`;
}

/**
 * One escape attempt: `attack` must resolve when the protection held and throw (fail) when the
 * attack got out.
 */
export function escapeAttempt(
  escapeClass: EscapeClass,
  title: string,
  attack: () => Promise<void> | void,
  timeoutMs?: number,
): void {
  it(escapeTitle(escapeClass, title), attack, timeoutMs);
}
