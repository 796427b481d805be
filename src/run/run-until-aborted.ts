// A handler may ignore its abort signal; the call must not wait for it.

/** The `then` of a thenable, or `undefined`; a throwing `then` getter counts as a rejection. */
function thenOf(value: unknown): ((onFulfilled: (v: unknown) => void, onRejected: (e: unknown) => void) => unknown) | undefined {
  if ((typeof value !== "object" && typeof value !== "function") || value === null) return undefined;
  const then = (value as { then?: unknown }).then;
  return typeof then === "function" ? (then as never) : undefined;
}

/**
 * Runs `task`, settling early with the abort reason when `signal` fires (a handler may ignore it,
 * or return a thenable that never settles). Any thenable is followed, not only native promises.
 */
export async function runUntilAborted<T>(task: () => T | PromiseLike<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) throw signal.reason;
  const pending = task();
  const then = thenOf(pending);
  if (then === undefined) return pending as T;
  let onAbort: (() => void) | undefined;
  try {
    return await new Promise<T>((resolve, reject) => {
      onAbort = () => reject(signal.reason);
      signal.addEventListener("abort", onAbort, { once: true });
      try {
        then.call(pending, resolve as (v: unknown) => void, reject);
      } catch (error) {
        reject(error);
      }
    });
  } finally {
    signal.removeEventListener("abort", onAbort as () => void);
  }
}
