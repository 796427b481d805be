/** One call's cancellation: its own signal, and the function that ends it. */
export interface CallLifetime {
  /** Aborted when the host's signal, the run or the registry ends the call. */
  readonly signal: AbortSignal;
  /** Forgets the call: removes every listener added for it. Call it once the call ended. */
  readonly end: () => void;
}

/** The calls in flight under one host signal, and the one listener they share on it. */
interface HostWatch {
  readonly calls: Set<(reason: unknown) => void>;
  readonly listener: () => void;
}

/**
 * One abort listener per host signal, however many calls share it: a host commonly passes one
 * signal for a whole conversation, and a listener per call put 300 on it for 300 parallel calls
 * (a `MaxListenersExceededWarning` from the eleventh).
 */
const hostWatches = new WeakMap<AbortSignal, HostWatch>();

/**
 * Calls `onAbort` when `signal` (a host's, possibly shared by many calls) aborts; returns the
 * function that stops watching, which never throws. However many watch one signal, it holds one
 * listener. Throws when the signal's `addEventListener` does (a host's signal-like object).
 */
export function watchHostSignal(signal: AbortSignal, onAbort: (reason: unknown) => void): () => void {
  let watch = hostWatches.get(signal);
  if (watch === undefined) {
    const calls = new Set<(reason: unknown) => void>();
    const listener = () => {
      hostWatches.delete(signal);
      for (const call of [...calls]) call(signal.reason);
    };
    watch = { calls, listener };
    // Added before the watch is kept: a signal-like object whose addEventListener throws is not
    // watched, and the next call under it tries again instead of trusting a listener never added.
    signal.addEventListener("abort", listener, { once: true });
    hostWatches.set(signal, watch);
  }
  const { calls } = watch;
  calls.add(onAbort);
  return () => {
    calls.delete(onAbort);
    if (calls.size === 0 && hostWatches.get(signal) === watch) {
      hostWatches.delete(signal);
      // Never throws: it runs once a call or a save has ended, and a host's signal-like object
      // whose removeEventListener throws must not turn that call's answer into a failure (the
      // listener left behind only reaches an empty set).
      try {
        signal.removeEventListener("abort", watch.listener);
      } catch {
        // The host's object; nothing of the call depends on it any more.
      }
    }
  };
}

/**
 * The calls in flight of one owner (a run, a registry). Each call gets its own controller, so
 * nothing is ever added to a long-lived signal but one listener per host signal: a run with a thousand concurrent calls adds no
 * listener to the run's signal (no `MaxListenersExceededWarning`), and what a library adds to a
 * call's signal (the MCP SDK adds one listener per request) goes away with the call.
 */
export class CallLifetimes {
  private readonly controllers = new Set<AbortController>();
  private endedWith: { reason: unknown } | undefined;

  /** How many calls are in flight. */
  get size(): number {
    return this.controllers.size;
  }

  /**
   * Starts a call linked to `hostSignal` (the host's per-call signal) and to `others` (e.g. the
   * registry's lifetimes): aborting any of them aborts the call.
   */
  open(hostSignal: AbortSignal | undefined, others: readonly CallLifetimes[] = []): CallLifetime {
    const controller = new AbortController();
    const abort = (reason: unknown) => {
      if (!controller.signal.aborted) controller.abort(reason);
    };
    const owners: CallLifetimes[] = [this, ...others];
    for (const owner of owners) {
      if (owner.endedWith !== undefined) abort(owner.endedWith.reason);
      owner.controllers.add(controller);
    }
    let unwatch: (() => void) | undefined;
    if (hostSignal?.aborted === true) abort(hostSignal.reason);
    else if (hostSignal !== undefined) unwatch = watchHostSignal(hostSignal, abort);
    let ended = false;
    return {
      signal: controller.signal,
      end: () => {
        if (ended) return;
        ended = true;
        unwatch?.();
        for (const owner of owners) owner.controllers.delete(controller);
      },
    };
  }

  /** Aborts every call in flight, and every call opened from now on, with `reason`. */
  abortAll(reason: unknown): void {
    this.endedWith ??= { reason };
    for (const controller of [...this.controllers]) {
      if (!controller.signal.aborted) controller.abort(reason);
    }
  }
}
