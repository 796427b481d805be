/** One call's cancellation: its own signal, and the function that ends it. */
export interface CallLifetime {
  /** Aborted when the host's signal, the run or the registry ends the call. */
  readonly signal: AbortSignal;
  /** Forgets the call: removes every listener added for it. Call it once the call ended. */
  readonly end: () => void;
}

/**
 * The calls in flight of one owner (a run, a registry). Each call gets its own controller, so
 * nothing is ever added to a long-lived signal: a run with a thousand concurrent calls adds no
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
    const onHostAbort = () => abort(hostSignal?.reason);
    if (hostSignal?.aborted === true) abort(hostSignal.reason);
    else hostSignal?.addEventListener("abort", onHostAbort, { once: true });
    let ended = false;
    return {
      signal: controller.signal,
      end: () => {
        if (ended) return;
        ended = true;
        hostSignal?.removeEventListener("abort", onHostAbort);
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
