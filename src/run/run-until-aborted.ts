// A handler may ignore its abort signal; the call must not wait for it.

/** The `then` of a thenable, or `undefined`; a throwing `then` getter counts as a rejection. */
function thenOf(value: unknown): ((onFulfilled: (v: unknown) => void, onRejected: (e: unknown) => void) => unknown) | undefined {
  if ((typeof value !== "object" && typeof value !== "function") || value === null) return undefined;
  const then = (value as { then?: unknown }).then;
  return typeof then === "function" ? (then as never) : undefined;
}

/**
 * Thenables followed before the call fails: a real result is one or two levels deep, so this only
 * stops a handler whose thenables keep resolving to further thenables (or to themselves).
 */
export const MAX_THENABLE_DEPTH = 10_000;

/**
 * Levels followed synchronously before yielding to the event loop. A thenable that resolves to
 * itself inside `then` would otherwise keep the microtask queue busy forever: no timer, and so no
 * abort signal, could ever fire.
 */
const LEVELS_PER_TURN = 32;

/**
 * Runs `task`, settling early with the abort reason when `signal` fires (a handler may ignore it,
 * or return a thenable that never settles). Any thenable is followed, not only native promises,
 * one level at a time by this function (not by `await`), so a self-resolving or endlessly nested
 * thenable is aborted by the signal or refused at {@link MAX_THENABLE_DEPTH} levels instead of
 * starving the event loop.
 */
export async function runUntilAborted<T>(task: () => T | PromiseLike<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) throw signal.reason;
  const pending = task();
  if (thenOf(pending) === undefined) return pending as T;
  let onAbort: (() => void) | undefined;
  try {
    return await new Promise<T>((resolve, reject) => {
      let settled = false;
      const settle = (action: () => void): void => {
        if (settled) return;
        settled = true;
        action();
      };
      onAbort = () => settle(() => reject(signal.reason));
      signal.addEventListener("abort", onAbort, { once: true });
      let depth = 0;
      const follow = (value: unknown): void => {
        if (settled) return;
        let then: ReturnType<typeof thenOf>;
        try {
          then = thenOf(value);
        } catch (error) {
          settle(() => reject(error));
          return;
        }
        if (then === undefined) {
          settle(() => resolve(value as T));
          return;
        }
        depth += 1;
        if (depth > MAX_THENABLE_DEPTH) {
          settle(() =>
            reject(new Error(`the handler's result kept resolving to another thenable (${MAX_THENABLE_DEPTH} levels)`)),
          );
          return;
        }
        // Only the first answer of a thenable counts (as for promises).
        let answered = false;
        const onFulfilled = (next: unknown): void => {
          if (answered) return;
          answered = true;
          if (depth % LEVELS_PER_TURN === 0) setImmediate(follow, next);
          else follow(next);
        };
        const onRejected = (error: unknown): void => {
          if (answered) return;
          answered = true;
          settle(() => reject(error));
        };
        try {
          then.call(value, onFulfilled, onRejected);
        } catch (error) {
          onRejected(error);
        }
      };
      follow(pending);
    });
  } finally {
    signal.removeEventListener("abort", onAbort as () => void);
  }
}
