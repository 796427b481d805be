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
