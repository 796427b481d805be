/**
 * The event loop's longest hold while some work runs, without the machine's load, for tests that
 * bound how long the host's thread is held. A timer's lateness in wall time (or
 * `monitorEventLoopDelay`) reads the load as much as the code: on 2 shared cores at load 20-40 a
 * thread that wants to run waits for a CPU for hundreds of milliseconds at a time, its loop held
 * by nothing (706 ms "blocks" in a test that holds it for tens). Here a hold is a timer's wall
 * time between two ticks less the time this thread waited runnable for a CPU meanwhile
 * (test/support/thread-time.ts): what is left is the thread running, or blocked in a synchronous
 * call (a `readFileSync`, a `spawnSync`), both of which hold the loop.
 */
import { threadTimes } from "./thread-time.js";

/** What {@link longestHold} measured. */
export interface LoopHold<Result> {
  readonly result: Result;
  /** The longest hold: wall time between two ticks less this thread's wait for a CPU, in ms. */
  readonly longestMs: number;
  /** The time this thread ran during that hold, in ms (for messages). */
  readonly longestRanMs: number;
  /** How many times the timer fired during the work. */
  readonly ticks: number;
}

/**
 * Runs `work` while a timer of `intervalMs` (1 by default) notes, at each tick, the wall time since
 * the last one less this thread's wait for a CPU; the longest is the longest hold. A last reading
 * after the work ends sees a hold at its very end. Without Linux's schedstat (thread-time.ts) no
 * wait can be read: the hold is then the wall time alone.
 */
export async function longestHold<Result>(work: () => Promise<Result>, intervalMs = 1): Promise<LoopHold<Result>> {
  let last = threadTimes();
  let longestMs = 0;
  let longestRanMs = 0;
  let ticks = 0;
  const sinceLast = () => {
    const now = threadTimes();
    const held = now.wallMs - last.wallMs - (now.waitedMs - last.waitedMs);
    if (held > longestMs) {
      longestMs = held;
      longestRanMs = now.ranMs - last.ranMs;
    }
    last = now;
  };
  const timer = setInterval(() => {
    ticks++;
    sinceLast();
  }, intervalMs);
  try {
    const result = await work();
    sinceLast();
    return { result, longestMs, longestRanMs, ticks };
  } finally {
    clearInterval(timer);
  }
}
