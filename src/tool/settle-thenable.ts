// Handlers and hosts may hand back any thenable, hostile ones included. `await` and
// `Promise.resolve` follow a thenable that resolves to itself (or to ever new thenables) in
// microtasks forever: no timer, and so no timeout or abort signal, can fire again.

/**
 * Thenables followed before giving up: a real result is one or two levels deep, so this only stops
 * thenables that keep resolving to further thenables (or to themselves).
 */
export const MAX_THENABLE_DEPTH = 10_000;

/** Levels followed in one turn of the event loop before yielding to timers and I/O. */
const LEVELS_PER_TURN = 32;

type Then = (onFulfilled: (value: unknown) => void, onRejected: (error: unknown) => void) => unknown;

/** The `then` of a thenable, or `undefined`; a throwing `then` getter throws (a rejection). */
function thenOf(value: unknown): Then | undefined {
  if ((typeof value !== "object" && typeof value !== "function") || value === null) return undefined;
  const then = (value as { then?: unknown }).then;
  return typeof then === "function" ? (then as Then) : undefined;
}

/**
 * A settled value in a box. Handing the value itself to a promise (resolving one with it, returning
 * it from an async function) would read its `then` again: a getter answering `undefined` to us and
 * a self-resolving function to the promise would restart the endless adoption.
 */
export interface Settled<T> {
  readonly value: T;
}

/**
 * `value` boxed when it is not a thenable (its `then` read once), else `undefined`: lets a caller
 * skip the promise machinery for the common synchronous result. A throwing `then` getter throws.
 */
export function settledNow<T>(value: unknown): Settled<T> | undefined {
  return thenOf(value) === undefined ? { value: value as T } : undefined;
}

/**
 * A native promise of the value `value` finally resolves to, boxed (see {@link Settled}), following
 * thenables one level at a time, each `then` read once: the event loop turns every 32 levels, and
 * past {@link MAX_THENABLE_DEPTH} levels the promise rejects. Only a thenable's first answer counts,
 * as for promises.
 */
export function settleThenable<T>(value: unknown): Promise<Settled<T>> {
  return new Promise<Settled<T>>((resolve, reject) => {
    let depth = 0;
    const follow = (current: unknown): void => {
      let then: Then | undefined;
      try {
        then = thenOf(current);
      } catch (error) {
        reject(error);
        return;
      }
      if (then === undefined) {
        resolve({ value: current as T });
        return;
      }
      depth += 1;
      if (depth > MAX_THENABLE_DEPTH) {
        reject(new Error(`the result kept resolving to another thenable (${MAX_THENABLE_DEPTH} levels)`));
        return;
      }
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
        reject(error);
      };
      try {
        then.call(current, onFulfilled, onRejected);
      } catch (error) {
        onRejected(error);
      }
    };
    follow(value);
  });
}
