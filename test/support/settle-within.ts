/**
 * `promise`'s outcome, or `late()`'s (its value, or what it throws) when `ms` pass first. The timer
 * is cleared either way: a bare `Promise.race` with a `setTimeout` leaves the timer pending after
 * the race is decided, and a file of the shared test project that ends with one pending fails the
 * worker guard (test/support/shared-worker-guard.ts) whenever the race was its last seconds.
 */
export async function settleWithin<T, L>(promise: Promise<T>, ms: number, late: () => L): Promise<T | L> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<L>((resolve, reject) => {
        timer = setTimeout(() => {
          try {
            resolve(late());
          } catch (error) {
            reject(error);
          }
        }, ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
