import { performance } from "node:perf_hooks";

/** How long a run of synchronous steps may hold the event loop before it yields. */
const SLICE_MS = 8;

const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Runs `step` over `items` synchronously, in order, yielding to the event loop whenever a run of
 * steps has held it for about {@link SLICE_MS}. For per-file steps that take microseconds (an
 * `lstat`, opening and reading a small file from the page cache, a `rename`): done one by one
 * through the thread pool, each costs a round trip (a queue, a wake-up, a callback) worth many
 * times the call itself, and a 500-file change makes thousands of them. A step's error is caught
 * and returned at its index (`undefined`: it succeeded), so one failure neither stops the others
 * nor loses what they did.
 */
export async function inSyncSlices<T>(items: readonly T[], step: (item: T, index: number) => void): Promise<unknown[]> {
  const errors: unknown[] = [];
  let sliceStart = performance.now();
  for (const [index, item] of items.entries()) {
    try {
      step(item, index);
    } catch (error) {
      errors[index] = error ?? new Error("step failed");
    }
    if (performance.now() - sliceStart > SLICE_MS) {
      await yieldToLoop();
      sliceStart = performance.now();
    }
  }
  return errors;
}
