import type { RunState } from "./run-state.js";
import type { RunStore } from "./run-store.js";

/** Options of {@link RunPersistence}. */
export interface RunPersistenceOptions {
  readonly store: RunStore<RunState>;
  readonly runId: string;
  /** The revision the run was loaded at (`undefined`: not known, the first save does not check). */
  readonly revision: number | undefined;
  readonly ttlMs: number | undefined;
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

  /** The revision of the last successful save (or the one the run was loaded at). */
  get lastRevision(): number | undefined {
    return this.revision;
  }

  /** Saves now (after the saves already queued); resolves with the new revision, or `undefined` when it failed. */
  save(): Promise<number | undefined> {
    const next = this.queue.then(async () => {
      try {
        const revision = await this.options.store.save(this.options.runId, this.options.snapshot(), {
          ...(this.revision === undefined ? {} : { expectedRevision: this.revision }),
          ...(this.options.ttlMs === undefined ? {} : { ttlMs: this.options.ttlMs }),
        });
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
}
