import { settleThenable } from "../tool/settle-thenable.js";
import { watchHostSignal } from "./call-lifetimes.js";
import type { RunState } from "./run-state.js";
import type { RunStore } from "./run-store.js";

/** Options of {@link RunPersistence}. */
export interface RunPersistenceOptions {
  readonly store: RunStore<RunState>;
  readonly runId: string;
  /** The revision the run was loaded at (`undefined`: not known, the first save does not check). */
  readonly revision: number | undefined;
  readonly ttlMs: number | undefined;
  /**
   * How long a call's save (and `run.save()`) is waited for before the result is returned anyway,
   * in ms. @defaultValue {@link CALL_SAVE_WAIT_MS}
   */
  readonly saveWaitMs?: number;
  /** The state to save, taken when the save starts. */
  readonly snapshot: () => RunState;
  /** Told when a save fails (a conflict: another process saved this run; or the store failed). */
  readonly onError: (error: unknown) => void;
}

/**
 * Saves a run to its store after each call, one save at a time and in order, with optimistic
 * concurrency from the revision it was loaded at: when another process saved the same run in
 * between, the save fails (reported, never thrown into the call) instead of overwriting it.
 */
export class RunPersistence {
  private revision: number | undefined;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: RunPersistenceOptions) {
    this.revision = options.revision;
  }

  /** How long {@link RunPersistence.saveWithinBound} waits: the `saveWaitMs` option, or {@link CALL_SAVE_WAIT_MS}. */
  get saveWaitMs(): number {
    return this.options.saveWaitMs ?? CALL_SAVE_WAIT_MS;
  }

  /** {@link RunPersistence.saveWithin} for the run's own bound ({@link RunPersistence.saveWaitMs}). */
  saveWithinBound(signal?: AbortSignal): Promise<number | undefined> {
    return this.saveWithin(this.saveWaitMs, signal);
  }

  /** The revision of the last successful save (or the one the run was loaded at). */
  get lastRevision(): number | undefined {
    return this.revision;
  }

  /** Saves now (after the saves already queued); resolves with the new revision, or `undefined` when it failed. */
  save(): Promise<number | undefined> {
    const next = this.queue.then(async () => {
      try {
        // Settled level by level: a store's thenable that resolves to itself would starve the wait's timer.
        const { value: revision } = await settleThenable<unknown>(
          this.options.store.save(this.options.runId, this.options.snapshot(), {
            ...(this.revision === undefined ? {} : { expectedRevision: this.revision }),
            ...(this.options.ttlMs === undefined ? {} : { ttlMs: this.options.ttlMs }),
          }),
        );
        // Anything but a revision number (an object whose `then` changes, say) is the store's fault.
        if (typeof revision !== "number" || !Number.isSafeInteger(revision)) {
          throw new TypeError(`the run store's save answered ${typeof revision}, not a revision number`);
        }
        this.revision = revision;
        return revision;
      } catch (error) {
        this.options.onError(error);
        return undefined;
      }
    });
    this.queue = next;
    return next;
  }

  /**
   * {@link RunPersistence.save}, but waits at most `waitMs`, and at most `ABORT_SAVE_WAIT_MS` once
   * `signal` aborts: a store that never answers (a stopped Redis, a client without a command
   * timeout) must not hold the call that saves forever. The save itself stays queued and runs in
   * order once the store answers; not knowing whether it landed is reported like a failure, and
   * resolves `undefined`.
   */
  saveWithin(waitMs: number, signal?: AbortSignal): Promise<number | undefined> {
    const saving = this.save();
    const startedAt = Date.now();
    let timer: ReturnType<typeof setTimeout> | undefined;
    let unwatch: (() => void) | undefined;
    const stopped = new Promise<undefined>((resolve) => {
      const stop = () => {
        const waited = Date.now() - startedAt;
        this.options.onError(
          new Error(`the store did not confirm the save within ${waited} ms; it stays queued and may land later`),
        );
        resolve(undefined);
      };
      timer = setTimeout(stop, waitMs);
      if (signal === undefined) return;
      // A cancelled call still gets a moment for a healthy store, so cancelling is not reported as a failed save.
      const onAbort = () => {
        const left = waitMs - (Date.now() - startedAt);
        if (left <= ABORT_SAVE_WAIT_MS) return;
        clearTimeout(timer);
        timer = setTimeout(stop, ABORT_SAVE_WAIT_MS);
      };
      // The host's signal, often one for the whole conversation: one shared listener, not one per save.
      // A signal-like object that throws here is not watched (the call already answered; the
      // wait stays bounded by its timer), so the call still resolves with its result.
      try {
        if (signal.aborted) onAbort();
        else unwatch = watchHostSignal(signal, onAbort);
      } catch {
        unwatch = undefined;
      }
    });
    return Promise.race([saving, stopped]).finally(() => {
      clearTimeout(timer);
      unwatch?.();
    });
  }
}

/** How long a save still gets once the call that waits for it was cancelled. */
const ABORT_SAVE_WAIT_MS = 1_000;

/**
 * How long `run.call` waits for the save that follows a call before returning the result anyway
 * (with a `state_save_failed` diagnostic), unless `createRun`'s `storeSaveWaitMs` says otherwise.
 * Long enough for a client that reconnects to a restarted server; short enough that a hung store
 * does not look like a hung tool.
 */
export const CALL_SAVE_WAIT_MS = 10_000;
