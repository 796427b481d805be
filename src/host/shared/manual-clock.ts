import type { Clock } from "./clock.js";

interface ManualTimer {
  readonly id: number;
  readonly due: number;
  readonly callback: () => void;
}

// A macrotask turn: lets every promise chain started by a timer (or by the code under test)
// run up to its next real wait before time moves again.
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * A clock that moves only when told to. Tests of cron jobs, delayed callbacks and bounded waits
 * take no real time: `await clock.advance(60_000)` fires, in order, every timer due within the
 * next minute, letting the async work each one starts run before the next fires.
 *
 * @example
 * ```ts
 * const clock = new ManualClock(Date.UTC(2025, 0, 1));
 * const callbacks = new InProcessCallbackManager({ clock, onFire });
 * await clock.advance(5_000);
 * ```
 * @public
 */
export class ManualClock implements Clock {
  private current: number;
  private nextId = 1;
  private readonly timers = new Map<number, ManualTimer>();

  /** @param start - the starting time in ms since the epoch. @defaultValue 0 */
  constructor(start = 0) {
    this.current = start;
  }

  /** The clock's current time. */
  now(): number {
    return this.current;
  }

  /** Schedules `callback` at `now() + delayMs`. */
  setTimeout(callback: () => void, delayMs: number): unknown {
    const timer: ManualTimer = { id: this.nextId++, due: this.current + Math.max(0, delayMs), callback };
    this.timers.set(timer.id, timer);
    return timer.id;
  }

  /** Cancels a timer. */
  clearTimeout(handle: unknown): void {
    if (typeof handle === "number") this.timers.delete(handle);
  }

  /** How many timers are waiting. */
  get pendingTimers(): number {
    return this.timers.size;
  }

  /**
   * Moves time forward by `ms`, firing due timers in order (timers that fire schedule new ones,
   * which fire too when they fall inside the window). Pending async work settles before the
   * first timer and after each one.
   */
  async advance(ms: number): Promise<void> {
    const target = this.current + Math.max(0, ms);
    await settle();
    for (;;) {
      const next = this.nextDue(target);
      if (next === undefined) break;
      this.timers.delete(next.id);
      this.current = Math.max(this.current, next.due);
      next.callback();
      await settle();
    }
    this.current = target;
    await settle();
  }

  private nextDue(target: number): ManualTimer | undefined {
    let best: ManualTimer | undefined;
    for (const timer of this.timers.values()) {
      if (timer.due > target) continue;
      if (best === undefined || timer.due < best.due || (timer.due === best.due && timer.id < best.id)) best = timer;
    }
    return best;
  }
}
