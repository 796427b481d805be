import { performance } from "node:perf_hooks";
import { inParallel } from "./in-parallel.js";

/** How long a run of synchronous steps may hold the event loop before it yields. */
const SLICE_MS = 8;
/**
 * A synchronous step slower than this on average means the file system is making callers wait
 * (a journal commit of a busy disk): the remaining steps then go through the thread pool.
 */
const SLOW_STEP_MS = 1;

const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * A monotonic clock in ms. The pacing is decided by time alone, so tests pass a fake one: with the
 * real clock a preempted process (a loaded machine) sees fast steps as slow, and vice versa never.
 */
export type PacingClock = () => number;

const systemPacingClock: PacingClock = () => performance.now();

/**
 * Runs `step` over `items` synchronously, in order, yielding to the event loop whenever a run of
 * steps has held it for about {@link SLICE_MS}. For per-file steps that take microseconds (an
 * `lstat`, opening and reading a small file from the page cache, a `rename`): done one by one
 * through the thread pool, each costs a round trip (a queue, a wake-up, a callback) worth many
 * times the call itself, and a 500-file change makes thousands of them. A step's error is caught
 * and returned at its index (`undefined`: it succeeded), so one failure neither stops the others
 * nor loses what they did.
 *
 * With `slowStep` (the same step through the thread pool): when the synchronous steps of a slice
 * average over {@link SLOW_STEP_MS} (the disk makes metadata changes wait), the remaining items
 * are done by `slowStep`, several at a time, so the event loop is not held and the waits overlap.
 * `now` is the clock the slices are measured with (a test seam; `performance.now` by default).
 */
export async function inSyncSlices<T>(
  items: readonly T[],
  step: (item: T, index: number) => void,
  slowStep?: (item: T, index: number) => Promise<void>,
  now: PacingClock = systemPacingClock,
): Promise<unknown[]> {
  const errors: unknown[] = [];
  let sliceStart = now();
  let sliceSteps = 0;
  for (const [index, item] of items.entries()) {
    try {
      step(item, index);
    } catch (error) {
      errors[index] = error ?? new Error("step failed");
    }
    sliceSteps++;
    const elapsed = now() - sliceStart;
    if (elapsed > SLICE_MS) {
      if (slowStep !== undefined && elapsed / sliceSteps > SLOW_STEP_MS && index + 1 < items.length) {
        const rest = items.slice(index + 1).map((each, offset) => ({ each, at: index + 1 + offset }));
        await inParallel(rest, async ({ each, at }) => {
          try {
            await slowStep(each, at);
          } catch (error) {
            errors[at] = error ?? new Error("step failed");
          }
        });
        return errors;
      }
      await yieldToLoop();
      sliceStart = now();
      sliceSteps = 0;
    }
  }
  return errors;
}

/**
 * Paces a walk of synchronous steps that cannot be listed up front (a directory tree opened
 * level by level), as {@link inSyncSlices} paces a list: call {@link StepPacer.stepped} after each
 * step. It yields to the event loop every {@link SLICE_MS}, and once the steps of a slice average
 * over {@link SLOW_STEP_MS} it turns {@link StepPacer.slow} on for good: the caller then takes the
 * thread-pool form of the remaining steps, several at a time.
 */
export class StepPacer {
  /** True once synchronous steps were found slow (the disk makes them wait): use the thread pool. */
  slow = false;
  private readonly now: PacingClock;
  private sliceStart: number;
  private sliceSteps = 0;

  /** @param now - the clock the slices are measured with (a test seam; `performance.now` by default). */
  constructor(now: PacingClock = systemPacingClock) {
    this.now = now;
    this.sliceStart = now();
  }

  /**
   * Starts a new slice after the caller awaited something else (a read through the thread pool):
   * what other work ran meanwhile (a process spawned, output read) is not the steps' time, and
   * counted as theirs it took a fast disk for a slow one.
   */
  resumed(): void {
    this.sliceStart = this.now();
    this.sliceSteps = 0;
  }

  /** Counts one step done; yields when the slice is used up. */
  async stepped(): Promise<void> {
    this.sliceSteps++;
    const elapsed = this.now() - this.sliceStart;
    if (elapsed <= SLICE_MS) return;
    if (elapsed / this.sliceSteps > SLOW_STEP_MS) this.slow = true;
    await yieldToLoop();
    this.sliceStart = this.now();
    this.sliceSteps = 0;
  }
}
