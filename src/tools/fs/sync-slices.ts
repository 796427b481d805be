import { closeSync, openSync, readSync } from "node:fs";
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
 * The time in ms the calling thread has spent runnable but waiting for a CPU, as a clock (only
 * differences between two readings mean anything). A slice's wall time less this is the time its
 * steps ran or were blocked (a disk making them wait): on a loaded machine a preempted thread's
 * microsecond steps otherwise average over {@link SLOW_STEP_MS} and take the thread-pool path,
 * which costs each step a round trip (a queue, a wake-up, a callback) and changes nothing the
 * disk does. Tests pass a fake one with a fake {@link PacingClock}.
 */
export type QueueClock = () => number;

/** The calling thread's `schedstat` (Linux), opened once per thread that asks: `null` where it cannot be read. */
let schedstat: number | null | undefined;
const schedstatBuffer = Buffer.alloc(96);

/**
 * Linux's per-thread run-queue wait (the second field of `/proc/thread-self/schedstat`, in ns:
 * one `pread` of a descriptor kept open; each worker thread has its own module instance, so its
 * own descriptor). 0 everywhere else, where the wall clock alone decides as before.
 */
const systemQueueClock: QueueClock = () => {
  if (schedstat === undefined) {
    try {
      schedstat = process.platform === "linux" ? openSync("/proc/thread-self/schedstat", "r") : null;
    } catch {
      schedstat = null;
    }
  }
  if (schedstat === null) return 0;
  try {
    const length = readSync(schedstat, schedstatBuffer, 0, schedstatBuffer.byteLength, 0);
    const waited = Number(schedstatBuffer.toString("latin1", 0, length).split(" ")[1]);
    return Number.isFinite(waited) ? waited / 1e6 : 0;
  } catch {
    // Not readable after all (a descriptor closed by someone else): the wall clock alone decides.
    const stale = schedstat;
    schedstat = null;
    try {
      closeSync(stale);
    } catch {
      // already gone
    }
    return 0;
  }
};

/**
 * The queue clock that goes with `now`: the system's with the system clock, none (always 0) with
 * a test's fake clock unless the test gives one.
 */
function queueClockFor(now: PacingClock, queued: QueueClock | undefined): QueueClock {
  return queued ?? (now === systemPacingClock ? systemQueueClock : () => 0);
}

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
 * `now` is the clock the slices are measured with (a test seam; `performance.now` by default),
 * `queued` the time the thread waited for a CPU (see {@link QueueClock}), taken off a slice's
 * time before its steps are judged slow; read once per slice that ends, never per step.
 */
export async function inSyncSlices<T>(
  items: readonly T[],
  step: (item: T, index: number) => void,
  slowStep?: (item: T, index: number) => Promise<void>,
  now: PacingClock = systemPacingClock,
  queued?: QueueClock,
): Promise<unknown[]> {
  const errors: unknown[] = [];
  const queue = queueClockFor(now, queued);
  let sliceStart = now();
  // A single item is never handed to `slowStep`: no reading needed.
  let sliceQueued = slowStep !== undefined && items.length > 1 ? queue() : 0;
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
      if (
        slowStep !== undefined &&
        elapsed / sliceSteps > SLOW_STEP_MS &&
        index + 1 < items.length &&
        (elapsed - Math.max(0, queue() - sliceQueued)) / sliceSteps > SLOW_STEP_MS
      ) {
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
      if (slowStep !== undefined) sliceQueued = queue();
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
  private readonly queue: QueueClock;
  private sliceStart: number;
  private sliceQueued: number;
  private sliceSteps = 0;

  /**
   * @param now - the clock the slices are measured with (a test seam; `performance.now` by default).
   * @param queued - the time the thread waited for a CPU (see {@link QueueClock}): taken off a
   * slice's time before its steps are judged slow (by default the system's with the system clock,
   * none with a fake one).
   */
  constructor(now: PacingClock = systemPacingClock, queued?: QueueClock) {
    this.now = now;
    this.queue = queueClockFor(now, queued);
    this.sliceStart = now();
    this.sliceQueued = this.queue();
  }

  /**
   * Starts a new slice after the caller awaited something else (a read through the thread pool):
   * what other work ran meanwhile (a process spawned, output read) is not the steps' time, and
   * counted as theirs it took a fast disk for a slow one.
   */
  resumed(): void {
    this.sliceStart = this.now();
    this.sliceQueued = this.queue();
    this.sliceSteps = 0;
  }

  /** Counts one step done; yields when the slice is used up. */
  async stepped(): Promise<void> {
    this.sliceSteps++;
    const elapsed = this.now() - this.sliceStart;
    if (elapsed <= SLICE_MS) return;
    if (
      elapsed / this.sliceSteps > SLOW_STEP_MS &&
      (elapsed - Math.max(0, this.queue() - this.sliceQueued)) / this.sliceSteps > SLOW_STEP_MS
    )
      this.slow = true;
    await yieldToLoop();
    this.sliceStart = this.now();
    this.sliceQueued = this.queue();
    this.sliceSteps = 0;
  }
}
