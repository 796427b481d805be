import { performance } from "node:perf_hooks";
import { setImmediate } from "node:timers/promises";

/**
 * Lets other work run (timers, I/O, the abort of this call) during a long synchronous-looking
 * walk, then stops it if the call was aborted. Object reads are synchronous for speed, so
 * without this a history walk would hold the event loop for its whole length.
 */
export async function yieldToEventLoop(signal: AbortSignal): Promise<void> {
  await setImmediate();
  signal.throwIfAborted();
}

/** Work between two yields of a {@link Pacer}, in milliseconds. */
const PACER_INTERVAL_MS = 8;

/**
 * {@link yieldToEventLoop} by the clock, for loops whose steps cost anything from a cached lookup
 * to hashing a large blob (rename detection): one yield per 8 ms of work, so neither a million
 * cheap steps pay a yield each nor a few costly ones hold the loop between counted yields.
 */
export class Pacer {
  private last = performance.now();

  constructor(private readonly signal: AbortSignal) {}

  /**
   * Whether 8 ms of work have passed since the last yield: a loop whose steps are synchronous
   * (blob reads of the node driver) asks this first and awaits {@link Pacer.step} only when it
   * is due, so its steps make no promise each.
   */
  due(): boolean {
    return performance.now() - this.last >= PACER_INTERVAL_MS;
  }

  /** Called after each step: yields, and stops on abort, once 8 ms of work have passed since the last yield. */
  async step(): Promise<void> {
    if (!this.due()) return;
    await yieldToEventLoop(this.signal);
    this.last = performance.now();
  }
}
