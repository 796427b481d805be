import {
  ConfigurationError,
  type RunCallClaim,
  type RunState,
  type RunStore,
  RunStoreConflictError,
  type RunStoreSaveOptions,
  type StoredRunState,
} from "agent-tool-catalog";
import type { Redis } from "ioredis";
import { checkNumberOption, TIMER_MS } from "../errors/check-number-option.js";
import { operationTimeout, withinRedisDeadline } from "./redis-deadline.js";
import { redisKey } from "./redis-key.js";

/**
 * Options of {@link RedisRunStore}.
 *
 * @beta
 */
export interface RedisRunStoreOptions {
  /** The connection (an ioredis client the host owns and closes). */
  readonly redis: Redis;
  /** Prefix of every key. @defaultValue `"atc"` */
  readonly prefix?: string;
  /** TTL of a saved state when a save gives none, in ms. @defaultValue none: states stay until deleted */
  readonly defaultTtlMs?: number;
  /**
   * How long `load` and `delete` wait for Redis before they reject with a `RedisTimeoutError`,
   * in ms (`save` is bounded by the run: see the README's "When Redis fails"). A client's own
   * `commandTimeout` still applies when shorter.
   * @defaultValue 10000
   */
  readonly operationTimeoutMs?: number;
  /**
   * How long a call's claim holds without renewal (`RunStore.callClaimTtlMs`): a run renews it
   * every third of this while the call runs, and a process that died while a call ran keeps its
   * call id from the other processes this long at most. Whole ms, at least 3; every process
   * sharing the keys must use the same value.
   * @defaultValue 30000
   */
  readonly callClaimTtlMs?: number;
}

// Compare-and-set in one script, so two processes saving the same revision cannot both win.
// KEYS[1] the run's hash; ARGV: expected revision ("" for none), state JSON, TTL ms ("" for none).
const SAVE = `
local current = tonumber(redis.call('HGET', KEYS[1], 'revision') or '0')
if ARGV[1] ~= '' and tonumber(ARGV[1]) ~= current then return {0, current} end
local revision = current + 1
redis.call('HSET', KEYS[1], 'revision', revision, 'state', ARGV[2])
if ARGV[3] ~= '' then redis.call('PEXPIRE', KEYS[1], ARGV[3]) else redis.call('PERSIST', KEYS[1]) end
return {1, revision}
`;

// A call's claim: set when free or already this token's (a renewal), in one script.
// KEYS[1] the claim; ARGV: token, TTL ms.
const CLAIM = `
local holder = redis.call('GET', KEYS[1])
if holder and holder ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1
`;

// Gives a claim up only when this token holds it. KEYS[1] the claim; ARGV[1] the token.
const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 1
`;

/**
 * A `RunStore` on Redis: one hash per run (`<prefix>:run:<id>` with `state` and
 * `revision`), saved with an atomic compare-and-set so optimistic concurrency holds across any
 * number of processes, and an optional TTL per save.
 * @beta
 */
export class RedisRunStore<State = RunState> implements RunStore<State> {
  private readonly redis: Redis;
  private readonly prefix: string;
  private readonly defaultTtlMs: number | undefined;
  private readonly operationTimeoutMs: number;
  /** {@inheritDoc RunStore.callClaimTtlMs} */
  readonly callClaimTtlMs: number | undefined;

  constructor(options: RedisRunStoreOptions) {
    this.redis = options.redis;
    this.prefix = options.prefix ?? "atc";
    // The same rule as createRun's storeTtlMs, which reaches this store as a save's ttlMs.
    this.defaultTtlMs = checkNumberOption(
      options.defaultTtlMs,
      "defaultTtlMs",
      { min: 1, integer: true, infinite: true },
      "RedisRunStore",
    );
    this.operationTimeoutMs = operationTimeout(options.operationTimeoutMs, "RedisRunStore");
    // At least 3: renewed every third of it, by a timer (which takes whole ms from 1). Left out,
    // the run's own default holds.
    this.callClaimTtlMs = checkNumberOption(options.callClaimTtlMs, "callClaimTtlMs", { ...TIMER_MS, min: 3 }, "RedisRunStore");
  }

  /**
   * {@inheritDoc RunStore.load}
   * @throws RedisTimeoutError when Redis does not answer within `operationTimeoutMs` (so `openRun`
   * rejects instead of waiting as long as the client does; nothing is assumed about the run).
   * @throws ConfigurationError `invalid_run_state` when the stored value is not JSON, its revision
   * not a positive integer, one of the two missing, or the key not a hash (written by something
   * else, or cut).
   */
  async load(runId: string): Promise<StoredRunState<State> | undefined> {
    let fields: (string | null)[];
    try {
      fields = await withinRedisDeadline("RedisRunStore.load", this.operationTimeoutMs, false, () =>
        this.redis.hmget(this.key(runId), "state", "revision"),
      );
    } catch (error) {
      // Another program's key under the name (a string, a list): Redis's WRONGTYPE reply is the
      // same error as any other value this store did not write, not a bare ReplyError.
      if (isWrongType(error)) throw invalidStoredState(runId, "the key is not a hash");
      throw error;
    }
    const [state, revision] = fields;
    const hasState = state !== null && state !== undefined;
    const hasRevision = revision !== null && revision !== undefined;
    if (!hasState && !hasRevision) return undefined;
    // This store writes both fields in one script. A hash holding one of them was written or cut
    // by something else: read as "nothing stored", a revision alone opened a fresh run whose every
    // save then conflicted with it (and a state alone was overwritten by the first save).
    if (!hasState || !hasRevision)
      throw invalidStoredState(runId, hasState ? "a state without a revision" : "a revision without a state");
    // A value this store did not write (cut, edited by hand, another program's key) is the same
    // error as an invalid state given to createRun, not a bare SyntaxError, and never a NaN
    // revision that every later save would conflict with.
    const number = Number(revision);
    if (!Number.isSafeInteger(number) || number < 1) throw invalidStoredState(runId, `revision ${JSON.stringify(revision)}`);
    try {
      return { state: JSON.parse(state) as State, revision: number };
    } catch (error) {
      throw invalidStoredState(runId, (error as Error).message);
    }
  }

  /** {@inheritDoc RunStore.save} */
  async save(runId: string, state: State, options: RunStoreSaveOptions = {}): Promise<number> {
    const ttl = options.ttlMs ?? this.defaultTtlMs;
    const expected = options.expectedRevision;
    const [saved, revision] = (await this.redis.eval(
      SAVE,
      1,
      this.key(runId),
      expected === undefined ? "" : String(expected),
      JSON.stringify(state),
      // Infinity: never expires (no PX; "Infinity" is not a number Redis takes).
      ttl === undefined || ttl === Number.POSITIVE_INFINITY ? "" : String(Math.max(1, Math.ceil(ttl))),
    )) as [number, number];
    if (saved !== 1) throw new RunStoreConflictError(runId, expected ?? 0, revision);
    return revision;
  }

  /**
   * {@inheritDoc RunStore.delete}
   * @throws RedisTimeoutError when Redis does not answer within `operationTimeoutMs` (the delete
   * may still happen once it answers).
   */
  async delete(runId: string): Promise<boolean> {
    const deleted = await withinRedisDeadline("RedisRunStore.delete", this.operationTimeoutMs, true, () =>
      this.redis.del(this.key(runId)),
    );
    return deleted > 0;
  }

  /**
   * Claims a call of a run for `claim.token` for `claim.ttlMs` (see `RunStore.claimCall`): true
   * when it was free or already this token's (a renewal), false when another token holds it.
   * One key per claimed call (`<prefix>:call:<run id length>:<run id>:<call id>`), set with its TTL
   * in one script, so two processes claiming one call cannot both win; the TTL is Redis's clock.
   * @throws RedisTimeoutError when Redis does not answer within `operationTimeoutMs` (the call is
   * then not run; the claim may still land: a run releases it with its token at once, the release
   * queued behind it on the connection).
   */
  async claimCall(runId: string, callId: string, claim: RunCallClaim): Promise<boolean> {
    const claimed = await withinRedisDeadline("RedisRunStore.claimCall", this.operationTimeoutMs, true, () =>
      this.redis.eval(CLAIM, 1, this.claimKey(runId, callId), claim.token, String(Math.max(1, Math.ceil(claim.ttlMs)))),
    );
    return claimed === 1;
  }

  /** {@inheritDoc RunStore.releaseCall} */
  async releaseCall(runId: string, callId: string, token: string): Promise<void> {
    await withinRedisDeadline("RedisRunStore.releaseCall", this.operationTimeoutMs, true, () =>
      this.redis.eval(RELEASE, 1, this.claimKey(runId, callId), token),
    );
  }

  // The run id's length first: run "a:b" call "c" and run "a" call "b:c" are different keys.
  private claimKey(runId: string, callId: string): string {
    return redisKey(this.prefix, "call", String(runId.length), runId, callId);
  }

  private key(runId: string): string {
    return redisKey(this.prefix, "run", runId);
  }
}

/** Redis's reply to a command on a key of another type (`WRONGTYPE Operation against a key ...`). */
function isWrongType(error: unknown): boolean {
  return error instanceof Error && error.message.startsWith("WRONGTYPE");
}

function invalidStoredState(runId: string, problem: string): ConfigurationError {
  return new ConfigurationError(
    "invalid_run_state",
    `Run ${JSON.stringify(runId)} in Redis is not a saved run state (${problem}).`,
    {
      data: { field: "state", runId },
    },
  );
}
