import { CatalogError } from "../errors/catalog-error.js";
import type { RunState } from "./run-state.js";

/**
 * A saved run state and its revision, as a {@link RunStore} returns it.
 *
 * @public
 */
export interface StoredRunState<State = RunState> {
  /** The state as saved (for runs: what `run.toJSON()` returned). */
  readonly state: State;
  /** Increases by one on every save; what {@link RunStoreSaveOptions.expectedRevision} compares to. */
  readonly revision: number;
}

/**
 * Options of {@link RunStore.save}.
 *
 * @public
 */
export interface RunStoreSaveOptions {
  /**
   * Optimistic concurrency: the revision the caller last loaded (`0` when it expects no saved
   * state). When the stored revision differs, the save is refused with a
   * {@link RunStoreConflictError} and nothing is written. Absent: last writer wins.
   */
  readonly expectedRevision?: number;
  /** Drop the state this many ms after this save. @defaultValue the store's default (none for the in-memory store) */
  readonly ttlMs?: number;
}

/**
 * Where run states live between processes: a run saved by one process is loaded by another.
 * Implementations: {@link InMemoryRunStore} (one process, tests) and `RedisRunStore` from
 * `agent-tool-catalog/redis`.
 * @public
 */
export interface RunStore<State = RunState> {
  /** The saved state of `runId`, or `undefined` when none (or it expired). */
  load(runId: string): Promise<StoredRunState<State> | undefined>;
  /**
   * Saves `state` as the new revision and returns that revision.
   * @throws RunStoreConflictError when `expectedRevision` is given and differs from the stored one.
   */
  save(runId: string, state: State, options?: RunStoreSaveOptions): Promise<number>;
  /** Deletes a saved state; false when there was none. */
  delete(runId: string): Promise<boolean>;
  /**
   * Claims the call `callId` of `runId` for the holder of `claim.token`, atomically across every
   * process sharing the store, for `claim.ttlMs`: true when the call was free or is already this
   * token's (then the claim's time starts again: a renewal), false when another token holds it.
   * A run with a store that has this method runs a call with a host-given id only when it got the
   * claim (or this run copy already holds it), so one provider call delivered to two processes at
   * overlapping times runs in one; the other is answered `duplicate_call_id`. Optional: a store
   * without it claims nothing across processes.
   */
  claimCall?(runId: string, callId: string, claim: RunCallClaim): Promise<boolean>;
  /**
   * How long a call's claim holds without renewal, in ms (a run renews it every third of this
   * while the call runs): how long a process that died while a call ran keeps its id from other
   * processes. Every process sharing the store must use the same value.
   * @defaultValue 30000 (when the store leaves it out)
   */
  readonly callClaimTtlMs?: number | undefined;
  /** Gives up the claim of `callId` when `token` holds it (a claim held by another token stays). */
  releaseCall?(runId: string, callId: string, token: string): Promise<void>;
}

/**
 * A claim on one call of a run, as {@link RunStore.claimCall} takes it.
 *
 * @public
 */
export interface RunCallClaim {
  /** Who holds it: random per call. */
  readonly token: string;
  /** How long it holds without renewal, in ms. */
  readonly ttlMs: number;
}

/**
 * A {@link RunStore.save} lost an optimistic-concurrency race: someone saved in between.
 *
 * @public
 */
export class RunStoreConflictError extends CatalogError {
  /** The run. */
  readonly runId: string;
  /** The revision the caller expected. */
  readonly expectedRevision: number;
  /** The revision found (0: none saved). */
  readonly actualRevision: number;

  constructor(runId: string, expectedRevision: number, actualRevision: number) {
    super(
      "run_store_conflict",
      `Run ${JSON.stringify(runId)} was saved by someone else (expected revision ${expectedRevision}, found ${actualRevision}); load it again and retry.`,
      { data: { runId, expectedRevision, actualRevision } },
    );
    this.name = "RunStoreConflictError";
    this.runId = runId;
    this.expectedRevision = expectedRevision;
    this.actualRevision = actualRevision;
  }
}

interface MemoryClaim {
  readonly token: string;
  readonly expiresAt: number;
}

interface MemoryEntry {
  readonly json: string;
  readonly revision: number;
  readonly expiresAt: number;
}

/**
 * A {@link RunStore} in this process's memory. States are copied through JSON on save and load,
 * so what a test gets back is exactly what a remote store would give.
 * @public
 */
export class InMemoryRunStore<State = RunState> implements RunStore<State> {
  private readonly entries = new Map<string, MemoryEntry>();
  private readonly claims = new Map<string, MemoryClaim>();
  private readonly now: () => number;

  /** @param options - `now`: the time source for TTLs (tests). */
  constructor(options: { readonly now?: () => number } = {}) {
    this.now = options.now ?? Date.now;
  }

  /** {@inheritDoc RunStore.load} */
  async load(runId: string): Promise<StoredRunState<State> | undefined> {
    const entry = this.live(runId);
    return entry === undefined ? undefined : { state: JSON.parse(entry.json) as State, revision: entry.revision };
  }

  /** {@inheritDoc RunStore.save} */
  async save(runId: string, state: State, options: RunStoreSaveOptions = {}): Promise<number> {
    const current = this.live(runId)?.revision ?? 0;
    if (options.expectedRevision !== undefined && options.expectedRevision !== current) {
      throw new RunStoreConflictError(runId, options.expectedRevision, current);
    }
    const revision = current + 1;
    const ttl = options.ttlMs;
    this.entries.set(runId, {
      json: JSON.stringify(state),
      revision,
      expiresAt: ttl === undefined ? Number.POSITIVE_INFINITY : this.now() + ttl,
    });
    return revision;
  }

  /** {@inheritDoc RunStore.delete} */
  async delete(runId: string): Promise<boolean> {
    const existed = this.live(runId) !== undefined;
    this.entries.delete(runId);
    return existed;
  }

  /** {@inheritDoc RunStore.claimCall} */
  async claimCall(runId: string, callId: string, claim: RunCallClaim): Promise<boolean> {
    const key = JSON.stringify([runId, callId]);
    const held = this.claims.get(key);
    if (held !== undefined && held.token !== claim.token && held.expiresAt > this.now()) return false;
    this.claims.set(key, { token: claim.token, expiresAt: this.now() + claim.ttlMs });
    return true;
  }

  /** {@inheritDoc RunStore.releaseCall} */
  async releaseCall(runId: string, callId: string, token: string): Promise<void> {
    const key = JSON.stringify([runId, callId]);
    if (this.claims.get(key)?.token === token) this.claims.delete(key);
  }

  private live(runId: string): MemoryEntry | undefined {
    const entry = this.entries.get(runId);
    if (entry !== undefined && entry.expiresAt <= this.now()) {
      this.entries.delete(runId);
      return undefined;
    }
    return entry;
  }
}
