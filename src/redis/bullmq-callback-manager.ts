import { randomUUID } from "node:crypto";
import { ToolError } from "agent-tool-catalog";
import {
  CALLBACK_LIMITS,
  type CallbackManager,
  checkCallbackDelay,
  type DelayedCallback,
  type DelayedCallbackRequest,
} from "agent-tool-catalog/host";
import { type ConnectionOptions, DelayedError, type Job, Queue, Worker } from "bullmq";
import type { Redis } from "ioredis";
import { checkNumberOption, TIMER_MS } from "../errors/check-number-option.js";
import { REDIS_NOW_LUA, redisNow } from "./redis-clock.js";
import { operationTimeout, RETAIN_MS, withinRedisDeadline } from "./redis-deadline.js";
import { redisKey } from "./redis-key.js";
import {
  isUnreadableStoredRecord,
  parseStoredRecord,
  READ_STORED_RECORD_LUA,
  readStoredRecords,
  UNREADABLE_RECORD_REPLY,
  unreadableStoredRecord,
} from "./stored-record.js";

/** The fields a stored callback record must hold as strings to be read (listing, repair). */
const CALLBACK_TEXT_FIELDS = ["id", "conversationId", "status"] as const;
const LUA_CALLBACK_TEXT_FIELDS = CALLBACK_TEXT_FIELDS.map((field) => `'${field}'`).join(", ");

/**
 * Options of {@link BullMqCallbackManager}.
 *
 * @beta
 */
export interface BullMqCallbackManagerOptions {
  /** Where BullMQ connects (options, or an ioredis client with `maxRetriesPerRequest: null`). */
  readonly connection: ConnectionOptions;
  /** Prefix of every key. @defaultValue `"atc"` */
  readonly prefix?: string;
  /** The BullMQ queue's name. @defaultValue `"callbacks"` */
  readonly queueName?: string;
  /**
   * Re-invokes the agent in the callback's conversation, on the worker that fires it; a rejection
   * marks the callback `failed`. Needed by processes that call {@link BullMqCallbackManager.startWorker}.
   * Delivery is at least once: a worker that dies inside `onFire` (before it resolves) leaves the
   * callback to be fired again on another worker, so `onFire` may see the same `id` twice and
   * should deduplicate by it when a second turn would do harm.
   */
  readonly onFire?: (callback: DelayedCallback) => void | Promise<void>;
  /** Pending callbacks allowed per conversation: a whole number at least 1, or `Infinity`. @defaultValue 10 */
  readonly maxPendingPerConversation?: number;
  /** How long an ended callback stays readable, in whole ms at least 1. @defaultValue 86400000 (a day) */
  readonly retainMs?: number;
  /**
   * How long `schedule`, `cancel`, `list` and `get` wait for Redis before they reject with a
   * `RedisTimeoutError` (whose `mayHaveRun` says whether a write was sent), in ms.
   * @defaultValue 10000
   */
  readonly operationTimeoutMs?: number;
}

/**
 * Options of {@link BullMqCallbackManager.startWorker}.
 *
 * @beta
 */
export interface CallbackWorkerOptions {
  /** Callbacks this worker fires at once: a whole number at least 1. @defaultValue 8 */
  readonly concurrency?: number;
  /**
   * How long a firing holds its lock without renewal (the worker renews it while `onFire` runs),
   * in ms: a worker that died inside `onFire` is noticed after one to two times this, and the
   * callback is fired again on another worker. Also how often this worker repairs callbacks
   * whose job is missing (a scheduling process killed between its two writes). Whole ms from 1 to
   * 2^31 - 1 (Node runs a longer interval every millisecond).
   * @defaultValue 30000
   */
  readonly lockDurationMs?: number;
}

// Registers a callback if its conversation is under the limit, atomically across processes.
// KEYS[1] the conversation's pending set, KEYS[2] the record, KEYS[3] the due index; ARGV: id,
// JSON, limit, due at (ms).
// The record's createdAt and dueAt are set here, by Redis's clock (ARGV[4]: the delay in ms), and
// the script returns that time: hosts sharing one Redis may disagree about the time.
const SCHEDULE = `${REDIS_NOW_LUA}
local count = redis.call('SCARD', KEYS[1])
if count >= tonumber(ARGV[3]) then return {count, string.format('%.0f', now)} end
local callback = cjson.decode(ARGV[2])
callback.createdAt = now
callback.dueAt = now + tonumber(ARGV[4])
redis.call('SADD', KEYS[1], ARGV[1])
redis.call('SET', KEYS[2], cjson.encode(callback))
redis.call('ZADD', KEYS[3], string.format('%.0f', callback.dueAt), ARGV[1])
return {-1, string.format('%.0f', now)}
`;

// Takes a pending callback for firing: counts the attempt and returns the JSON; "" when it is not
// pending (cancelled, ended) or unknown; "#<ms>" when it is not due yet by Redis's clock (the ms
// left). A callback already taken by a worker that died is taken again (at least once). KEYS[1]
// the record.
const CLAIM = `${REDIS_NOW_LUA}${READ_STORED_RECORD_LUA}
local json = redis.call('GET', KEYS[1])
if not json then return '' end
local callback = readRecord(json, ${LUA_CALLBACK_TEXT_FIELDS})
if not callback or not tonumber(callback.dueAt) then return '${UNREADABLE_RECORD_REPLY}' end
if callback.status ~= 'pending' then return '' end
if tonumber(callback.dueAt) > now then return '#' .. string.format('%.0f', tonumber(callback.dueAt) - now) end
callback.firing = (tonumber(callback.firing) or 0) + 1
local out = cjson.encode(callback)
redis.call('SET', KEYS[1], out)
return out
`;

// Moves a pending callback to an end state, once. KEYS[1] the pending set, KEYS[2] the record,
// KEYS[3] the due index; ARGV: id, new status, conversation (or "" for any), retain ms, error,
// "1" when a callback being fired may not take it (a cancel). Returns the new JSON, "" when it is
// not pending (or not this conversation's), "!firing" when a cancel finds it being fired.
const END = `${READ_STORED_RECORD_LUA}
local json = redis.call('GET', KEYS[2])
if not json then return '' end
local callback = readRecord(json, ${LUA_CALLBACK_TEXT_FIELDS})
if not callback then return '${UNREADABLE_RECORD_REPLY}' end
if callback.status ~= 'pending' then return '' end
if ARGV[3] ~= '' and callback.conversationId ~= ARGV[3] then return '' end
if ARGV[6] == '1' and callback.firing then return '!firing' end
callback.status = ARGV[2]
callback.firing = nil
if ARGV[5] ~= '' then callback.error = ARGV[5] end
local out = cjson.encode(callback)
redis.call('SET', KEYS[2], out, 'PX', ARGV[4])
redis.call('SREM', KEYS[1], ARGV[1])
redis.call('ZREM', KEYS[3], ARGV[1])
return out
`;

/**
 * How many times a callback may be taken for firing (its record claimed) without its outcome being
 * recorded before it is marked failed: a worker that died inside onFire twice, or Redis failing
 * after each claim, does not fire it forever.
 */
const MAX_FIRINGS = 2;

/** A callback as stored: the public shape, plus how many times a worker took it for firing. */
type StoredCallback = DelayedCallback & { readonly firing?: number };

/** The public shape of a stored callback (cjson writes no `undefined` fields). */
function view(stored: StoredCallback): DelayedCallback {
  const { firing: _firing, ...callback } = stored;
  return callback;
}

/**
 * A `CallbackManager` on BullMQ delayed jobs: a callback scheduled by any process fires on one
 * worker, even after restarts; the spec's limits hold across processes (5 s to 1 h, at most 10
 * pending per conversation, checked atomically in Redis). Cancelling wins over a firing that has
 * not started: the state change is one atomic step either way.
 *
 * Order and guarantees (tested with real processes killed with `SIGKILL` and stopped with
 * `SIGSTOP`, and a real `redis-server`):
 * - the record is written before the job, so a job that fires always finds its record, however
 *   long the scheduling process or Redis stalls between the two; a process killed between them
 *   leaves a pending record without a job, which `list` and every worker repair (the job is added
 *   again with its remaining delay; a job id is the callback id, so it is never added twice);
 * - delivery is at least once: the record says `fired` only after `onFire` resolved; a worker
 *   that dies inside `onFire` leaves the job to BullMQ's stalled-job check, and another worker
 *   fires the callback again (once: a second death marks it `failed`); a Redis error when a
 *   worker takes the callback fails only its job, and the next repair fires it again; recording
 *   the outcome after `onFire` resolved is tried again for up to `operationTimeoutMs`; a callback
 *   taken twice without an outcome is marked `failed`, even once BullMQ dropped its failed job;
 * - `schedule`, `cancel`, `list` and `get` wait at most `operationTimeoutMs` for Redis.
 * @beta
 */
export class BullMqCallbackManager implements CallbackManager {
  private readonly options: BullMqCallbackManagerOptions;
  private readonly prefix: string;
  private readonly queue: Queue;
  private readonly workers: Worker[] = [];
  private readonly operationTimeoutMs: number;
  private sweeper: ReturnType<typeof setInterval> | undefined;
  private closed = false;

  constructor(options: BullMqCallbackManagerOptions) {
    this.options = options;
    this.prefix = options.prefix ?? "atc";
    this.operationTimeoutMs = operationTimeout(options.operationTimeoutMs, "BullMqCallbackManager");
    const limit = { min: 1, integer: true, infinite: true };
    checkNumberOption(options.maxPendingPerConversation, "maxPendingPerConversation", limit, "BullMqCallbackManager");
    checkNumberOption(options.retainMs, "retainMs", RETAIN_MS, "BullMqCallbackManager");
    this.queue = new Queue(options.queueName ?? "callbacks", { connection: options.connection, prefix: this.prefix });
  }

  /**
   * {@inheritDoc CallbackManager.schedule}
   * @throws RedisTimeoutError when Redis does not answer within `operationTimeoutMs` (`mayHaveRun`
   * once the record was sent: the callback may still be scheduled, and fires if so).
   */
  async schedule(request: DelayedCallbackRequest): Promise<DelayedCallback> {
    checkCallbackDelay(request.delaySeconds);
    const id = `cb_${randomUUID().replaceAll("-", "").slice(0, 12)}`;
    const limit = this.options.maxPendingPerConversation ?? CALLBACK_LIMITS.maxPendingPerConversation;
    const writes = { sent: false };
    return this.bounded(
      "schedule",
      () => writes.sent,
      async () => {
        const redis = await this.client();
        const delayMs = request.delaySeconds * 1000;
        // createdAt and dueAt are set by the script, in Redis's clock, not this host's: the due
        // time is judged by other hosts too (the repair sweep of any worker, the job's delay).
        const draft = { id, conversationId: request.conversationId, message: request.message, status: "pending" };
        // The record first, then the job: a job that fires always finds its record. A process
        // killed between the two leaves a pending record without a job, which repair() re-arms.
        writes.sent = true;
        const outcome = (await redis.eval(
          SCHEDULE,
          3,
          this.pendingKey(request.conversationId),
          this.recordKey(id),
          this.dueKey(),
          id,
          JSON.stringify(draft),
          String(limit),
          String(delayMs),
        )) as [number, string];
        const [count, at] = outcome;
        const now = Number(at);
        if (count !== -1) {
          throw new ToolError(
            "too_many_callbacks",
            `This conversation has ${count} pending callbacks already (the limit is ${limit}).`,
            { hint: "Cancel one with cancel_delayed_callback, or wait for one to fire." },
          );
        }
        const callback: DelayedCallback = { ...draft, status: "pending", createdAt: now, dueAt: now + delayMs };
        await this.arm(callback, now);
        return callback;
      },
    );
  }

  /**
   * {@inheritDoc CallbackManager.cancel}
   * @throws ToolError `unknown_callback` when it is not pending in this conversation, or is being
   * fired already (too late to cancel).
   * @throws RedisTimeoutError when Redis does not answer within `operationTimeoutMs` (it may still be cancelled).
   */
  async cancel(conversationId: string, id: string): Promise<DelayedCallback> {
    return this.bounded("cancel", true, async () => {
      const ended = await this.end(conversationId, id, "cancelled", "", true);
      if (ended === "firing") {
        throw new ToolError(
          "unknown_callback",
          `Callback ${JSON.stringify(id)} is being fired already; it cannot be cancelled.`,
          {
            hint: "It re-invokes this conversation shortly.",
          },
        );
      }
      if (ended === undefined) {
        throw new ToolError("unknown_callback", `There is no pending callback ${JSON.stringify(id)} in this conversation.`, {
          hint: "Call list_delayed_callbacks for the pending ones.",
        });
      }
      // The state change above is what counts; removing the BullMQ job only saves a wake-up.
      await (await this.queue.getJob(id))?.remove().catch(() => undefined);
      return ended;
    });
  }

  /**
   * The conversation's pending callbacks, soonest first; a callback being fired is not listed.
   * Repairs them first: one whose job is missing (its scheduling process died between the record
   * and the job) gets its job again.
   * @throws RedisTimeoutError when Redis does not answer within `operationTimeoutMs` (`mayHaveRun`
   * once a repair was sent).
   */
  async list(conversationId: string): Promise<DelayedCallback[]> {
    const writes = { sent: false };
    return this.bounded(
      "list",
      () => writes.sent,
      async () => {
        const redis = await this.client();
        const ids = await redis.smembers(this.pendingKey(conversationId));
        if (ids.length === 0) return [];
        const records = await redis.mget(...ids.map((id) => this.recordKey(id)));
        // A record another program wrote, unreadable, is left out rather than fail the listing.
        const pending = readStoredRecords<StoredCallback>(records, CALLBACK_TEXT_FIELDS).filter(
          (callback) => callback.status === "pending",
        );
        await this.repair(pending, writes);
        // A callback being fired is no longer the model's to cancel; it is not listed.
        return pending
          .filter((callback) => callback.firing === undefined)
          .map(view)
          .sort((a, b) => a.dueAt - b.dueAt);
      },
    );
  }

  /**
   * Any callback still readable (pending, or ended within `retainMs`).
   * @throws RedisTimeoutError when Redis does not answer within `operationTimeoutMs`.
   */
  async get(id: string): Promise<DelayedCallback | undefined> {
    const json = await this.bounded("get", false, async () => (await this.client()).get(this.recordKey(id)));
    return json === null ? undefined : view(this.parse(json, id));
  }

  /**
   * Fires due callbacks in this process (needs `onFire`), each on one worker at a time: the
   * record says `fired` once `onFire` resolved. Also repairs, every `lockDurationMs`, callbacks
   * due soon whose job is missing.
   */
  async startWorker(options: CallbackWorkerOptions = {}): Promise<void> {
    const onFire = this.options.onFire;
    if (onFire === undefined) throw new TypeError("BullMqCallbackManager.startWorker needs the onFire option.");
    checkNumberOption(options.concurrency, "concurrency", { min: 1, integer: true }, "BullMqCallbackManager.startWorker");
    checkNumberOption(options.lockDurationMs, "lockDurationMs", TIMER_MS, "BullMqCallbackManager.startWorker");
    const lockDurationMs = options.lockDurationMs ?? 30_000;
    const worker = new Worker(this.queue.name, (job: Job, token?: string) => this.fire(job, onFire, token), {
      connection: this.options.connection,
      prefix: this.prefix,
      concurrency: options.concurrency ?? 8,
      lockDuration: lockDurationMs,
      stalledInterval: lockDurationMs,
      // A worker that died inside onFire: its job runs once more elsewhere (at least once), and
      // a second death fails it (repair() then marks the callback failed).
      maxStalledCount: 1,
    });
    worker.on("error", () => undefined);
    this.workers.push(worker);
    await worker.waitUntilReady();
    // close() may have run during the wait: an interval started now would run on a closed queue.
    if (this.closed) return;
    const sweep = () => void this.sweep(lockDurationMs).catch(() => undefined);
    sweep();
    this.sweeper ??= setInterval(sweep, lockDurationMs);
    this.sweeper.unref();
  }

  /** Stops this process's workers and closes the queue. Pending callbacks stay in Redis. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.sweeper !== undefined) clearInterval(this.sweeper);
    this.sweeper = undefined;
    await Promise.all(this.workers.map((worker) => worker.close()));
    await this.queue.close();
  }

  private async fire(job: Job, onFire: (callback: DelayedCallback) => void | Promise<void>, token?: string): Promise<void> {
    const { id, conversationId } = job.data as { id: string; conversationId: string };
    // A transient Redis error here fails the job before onFire; repair() then fires it again.
    const claimed = (await (await this.client()).eval(CLAIM, 1, this.recordKey(id))) as string;
    if (claimed === "") return; // cancelled, already ended, or unknown
    if (claimed === UNREADABLE_RECORD_REPLY) throw unreadableStoredRecord(this.recordKey(id));
    if (claimed.startsWith("#")) {
      // BullMQ takes a delayed job when this process's clock says it is due: a worker whose clock
      // ran a minute ahead fired a 5 s callback at once. Not due by Redis's clock: the job waits
      // the time left, measured here as a duration (BullMQ judges the date by this clock again).
      await job.moveToDelayed(Date.now() + Number(claimed.slice(1)), token);
      throw new DelayedError();
    }
    const callback = view(this.parse(claimed, id));
    let error = "";
    try {
      await onFire(callback);
    } catch (thrown) {
      error = thrown instanceof Error ? thrown.message : String(thrown);
    }
    await this.endRetrying(conversationId, id, error === "" ? "fired" : "failed", error);
  }

  /**
   * Records a firing's outcome, tried again for up to `operationTimeoutMs` on a Redis error: once
   * onFire resolved, a transient error must not leave the callback to be fired again. If it still
   * fails, the job fails and repair() fires the callback again (at least once).
   */
  private async endRetrying(conversationId: string, id: string, status: DelayedCallback["status"], error: string): Promise<void> {
    const deadline = Date.now() + this.operationTimeoutMs;
    for (let wait = 50; ; wait = Math.min(wait * 2, 1_000)) {
      try {
        await this.end(conversationId, id, status, error, false);
        return;
      } catch (thrown) {
        // A record that cannot be read stays so: waiting for it is not a transient error.
        if (this.closed || Date.now() + wait > deadline || isUnreadableStoredRecord(thrown)) throw thrown;
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
    }
  }

  /**
   * Makes pending callbacks match their jobs. A callback taken for firing fewer than
   * `MAX_FIRINGS` (2) times whose job is missing (its scheduling process died between the record
   * and the job, or BullMQ dropped the failed job) or failed (a Redis error before its outcome was
   * recorded, or a worker that died twice) is fired again: added again with its remaining delay
   * (idempotent: the job id is the callback's id), or its failed job retried. One taken that often
   * is marked failed, whether or not BullMQ still keeps its failed job (`removeOnFail` drops them).
   */
  private async repair(pending: readonly StoredCallback[], writes: { sent: boolean }): Promise<void> {
    for (const callback of pending) {
      const job = await this.queue.getJob(callback.id);
      const failed = job === undefined ? false : (await job.getState()) === "failed";
      if (job !== undefined && !failed) continue;
      writes.sent = true;
      if ((callback.firing ?? 0) >= MAX_FIRINGS) {
        await this.end(
          callback.conversationId,
          callback.id,
          "failed",
          `It was taken for firing ${callback.firing} times and its outcome was never recorded (the worker stopped, or Redis failed).`,
          false,
        );
      } else if (job === undefined) {
        await this.arm(callback);
      } else {
        // Another process may retry it first: then it is no longer failed, and this one is not needed.
        await job.retry("failed").catch(() => undefined);
      }
    }
  }

  /** Repairs the callbacks due within the next `withinMs` (later ones at a later sweep). */
  private async sweep(withinMs: number): Promise<void> {
    const redis = await this.client();
    const ids = await redis.zrangebyscore(this.dueKey(), "-inf", String((await redisNow(redis)) + withinMs), "LIMIT", 0, 1000);
    if (ids.length === 0) return;
    const records = await redis.mget(...ids.map((id) => this.recordKey(id)));
    // One unreadable record must not stop the repair of every other callback due.
    const pending = readStoredRecords<StoredCallback>(records, CALLBACK_TEXT_FIELDS).filter(
      (callback) => callback.status === "pending",
    );
    await this.repair(pending, { sent: false });
  }

  /** Adds the callback's job; `now`: Redis's time, when the caller has just read it. */
  private async arm(callback: DelayedCallback, redisTime?: number): Promise<void> {
    // The job's creation time and delay in Redis's clock too: BullMQ dates a delayed job by the
    // `timestamp` it is given (default this host's clock), and a host a minute ahead armed a 5 s
    // callback to fire 65 s late on the other workers.
    const now = redisTime ?? (await redisNow(await this.client()));
    await this.queue.add(
      "callback",
      { id: callback.id, conversationId: callback.conversationId },
      {
        timestamp: now,
        delay: Math.max(0, callback.dueAt - now),
        jobId: callback.id,
        attempts: 1,
        removeOnComplete: true,
        removeOnFail: 100,
      },
    );
  }

  private async end(
    conversationId: string,
    id: string,
    status: DelayedCallback["status"],
    error: string,
    refuseFiring: boolean,
  ): Promise<DelayedCallback | "firing" | undefined> {
    const out = (await (
      await this.client()
    ).eval(
      END,
      3,
      this.pendingKey(conversationId),
      this.recordKey(id),
      this.dueKey(),
      id,
      status,
      conversationId,
      String(this.retainMs()),
      error,
      refuseFiring ? "1" : "0",
    )) as string;
    if (out === "!firing") return "firing";
    if (out === UNREADABLE_RECORD_REPLY) throw unreadableStoredRecord(this.recordKey(id));
    return out === "" ? undefined : view(this.parse(out, id));
  }

  private bounded<T>(method: string, mayHaveRun: boolean | (() => boolean), step: () => Promise<T>): Promise<T> {
    return withinRedisDeadline(`BullMqCallbackManager.${method}`, this.operationTimeoutMs, mayHaveRun, step);
  }

  private retainMs(): number {
    return this.options.retainMs ?? 86_400_000;
  }

  private async client(): Promise<Redis> {
    return (await this.queue.client) as unknown as Redis;
  }

  private pendingKey(conversationId: string): string {
    return redisKey(this.prefix, "callbacks", "pending", conversationId);
  }

  /** The stored callback `id`; one this package did not write is `invalid_stored_record`, not a `SyntaxError`. */
  private parse(json: string, id: string): StoredCallback {
    return parseStoredRecord<StoredCallback>(json, CALLBACK_TEXT_FIELDS, this.recordKey(id));
  }

  private recordKey(id: string): string {
    return redisKey(this.prefix, "callbacks", "record", id);
  }

  private dueKey(): string {
    return redisKey(this.prefix, "callbacks", "due");
  }
}
