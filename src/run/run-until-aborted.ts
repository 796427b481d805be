// A handler may ignore its abort signal; the call must not wait for it.
import { type Settled, settledNow, settleThenable } from "../tool/settle-thenable.js";

/**
 * Runs `task`, settling early with the abort reason when `signal` fires (a handler may ignore it,
 * or return a thenable that never settles). Any thenable is followed, not only native promises,
 * by {@link settleThenable}, so a self-resolving thenable cannot starve the event loop; the result
 * comes boxed for the same reason (unbox it where it is used, not in another promise).
 *
 * `onPending` gets the task's own settling (any thenable followed, never rejecting unhandled) when
 * it did not settle at once: what still runs after an abort answered early (the call id's claim
 * waits for it).
 */
export async function runUntilAborted<T>(
  task: () => T | PromiseLike<T>,
  signal: AbortSignal,
  onPending?: (settling: Promise<unknown>) => void,
): Promise<Settled<T>> {
  if (signal.aborted) throw signal.reason;
  const pending = task();
  // A synchronous result needs no promise, listener or extra turn (the call's hot path).
  const now = settledNow<T>(pending);
  if (now !== undefined) return now;
  const settling = settleThenable<T>(pending);
  onPending?.(
    settling.then(
      () => undefined,
      () => undefined,
    ),
  );
  let onAbort: (() => void) | undefined;
  try {
    return await new Promise<Settled<T>>((resolve, reject) => {
      onAbort = () => reject(signal.reason);
      settling.then(resolve, reject);
      // The task may have fired the signal itself while it ran (a handler that closes its run or
      // the registry, or aborts the host's controller): that event is gone, no listener would hear it.
      if (signal.aborted) onAbort();
      else signal.addEventListener("abort", onAbort, { once: true });
    });
  } finally {
    signal.removeEventListener("abort", onAbort as () => void);
  }
}
