import { describe, expect, it } from "vitest";
import { CPU_LIMIT_WALL_FACTOR, readThreadCpuMs } from "../../tool/thread-cpu-time.js";
import { LineMatcher, MatchDeadlineError } from "./grep-worker.js";

// Catastrophic backtracking: each line takes far longer than any deadline here.
const SLOW = { source: "^(a+)+$", flags: "" };
const TEXTS = [`${"a".repeat(40)}b\n`];
const DEADLINE_MS = 100;

/** How long a match took to be refused, and the error it was refused with. */
async function refusal(matcher: LineMatcher): Promise<{ elapsedMs: number; error: unknown }> {
  const started = performance.now();
  try {
    await matcher.match(TEXTS, new AbortController().signal);
    return { elapsedMs: performance.now() - started, error: undefined };
  } catch (error) {
    return { elapsedMs: performance.now() - started, error };
  } finally {
    await matcher.close();
  }
}

describe.skipIf(process.platform !== "linux")("grep's match deadline counts the worker thread's CPU time", () => {
  it("names its thread's stat file, whose CPU time grows while it matches", async () => {
    const seen: string[] = [];
    const matcher = new LineMatcher(SLOW.source, SLOW.flags, DEADLINE_MS, (statPath) => {
      seen.push(statPath);
      return readThreadCpuMs(statPath);
    });
    const { error } = await refusal(matcher);
    expect(error).toBeInstanceOf(MatchDeadlineError);
    expect(seen.length).toBeGreaterThan(0);
    expect(seen[0]).toMatch(/^\/proc\/\d+\/task\/\d+\/stat$/);
  });

  it("a thread that has not run the deadline (starved by the host's load) is waited for, up to the wall bound", async () => {
    // The clock says the thread ran nothing: only the wall bound may stop it.
    const { elapsedMs, error } = await refusal(new LineMatcher(SLOW.source, SLOW.flags, DEADLINE_MS, () => 0));
    expect(error).toBeInstanceOf(MatchDeadlineError);
    expect(elapsedMs).toBeGreaterThanOrEqual(DEADLINE_MS * CPU_LIMIT_WALL_FACTOR - 5);
  });

  it("a thread whose CPU cannot be read is held to the deadline in wall time", async () => {
    const { elapsedMs, error } = await refusal(new LineMatcher(SLOW.source, SLOW.flags, DEADLINE_MS, () => undefined));
    expect(error).toBeInstanceOf(MatchDeadlineError);
    expect(elapsedMs).toBeGreaterThanOrEqual(DEADLINE_MS - 5);
  });

  it("a harmless pattern is answered", async () => {
    const matcher = new LineMatcher("needle", "", DEADLINE_MS);
    try {
      expect(await matcher.match(["hay\nneedle\n"], new AbortController().signal)).toEqual([[1]]);
    } finally {
      await matcher.close();
    }
  });
});
