/**
 * Time as the host tools see it. Schedulers, callbacks and bounded waits take a clock instead of
 * reading `Date.now()` and `setTimeout` directly, so tests (and hosts that replay time) can drive
 * them without waiting: see {@link ManualClock}.
 * @public
 */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Calls `callback` once, after `delayMs` ms; returns a handle for {@link Clock.clearTimeout}. */
  setTimeout(callback: () => void, delayMs: number): unknown;
  /** Cancels a timer; unknown or fired handles are ignored. */
  clearTimeout(handle: unknown): void;
}

// Node clamps longer delays to 1 ms; a cron job a month away must not fire at once.
const MAX_TIMER_DELAY_MS = 2_147_483_647;

interface SystemTimer {
  timer: ReturnType<typeof setTimeout> | undefined;
}

function isSystemTimer(handle: unknown): handle is SystemTimer {
  return typeof handle === "object" && handle !== null && "timer" in handle;
}

/**
 * The real clock. Its timers are unref'd: a pending cron job or callback never keeps a process
 * alive on its own (a server's listening socket does), and delays longer than Node's timer
 * limit (about 24.8 days) are chained instead of firing at once.
 * @public
 */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout(callback, delayMs) {
    const handle: SystemTimer = { timer: undefined };
    const due = Date.now() + Math.max(0, delayMs);
    const arm = () => {
      const remaining = due - Date.now();
      if (remaining <= 0) {
        handle.timer = undefined;
        callback();
        return;
      }
      handle.timer = setTimeout(arm, Math.min(remaining, MAX_TIMER_DELAY_MS));
      handle.timer.unref?.();
    };
    handle.timer = setTimeout(arm, Math.min(Math.max(0, delayMs), MAX_TIMER_DELAY_MS));
    handle.timer.unref?.();
    return handle;
  },
  clearTimeout(handle) {
    if (isSystemTimer(handle) && handle.timer !== undefined) {
      clearTimeout(handle.timer);
      handle.timer = undefined;
    }
  },
};

/**
 * Resolves after `delayMs` on `clock`, or rejects with the signal's reason when it aborts first.
 * The timer is cleared either way, so an abandoned wait leaves nothing behind.
 * @public
 */
export function sleep(clock: Clock, delayMs: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clock.clearTimeout(handle);
      reject(signal?.reason);
    };
    const handle = clock.setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, delayMs);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * Waits for `done`, at most `timeoutMs` on `clock` and no longer than `signal` allows (a wait
 * that ends early just returns; the caller reads the state it waited on).
 */
export async function waitAtMost(
  done: Promise<unknown>,
  clock: Clock,
  timeoutMs: number,
  signal: AbortSignal | undefined,
): Promise<void> {
  let timer: unknown;
  let onAbort: (() => void) | undefined;
  const stop = new Promise<void>((resolve) => {
    timer = clock.setTimeout(resolve, timeoutMs);
    onAbort = resolve;
    signal?.addEventListener("abort", onAbort, { once: true });
  });
  try {
    await Promise.race([done, stop]);
  } finally {
    clock.clearTimeout(timer);
    if (onAbort !== undefined) signal?.removeEventListener("abort", onAbort);
  }
}
