import { randomUUID } from "node:crypto";
import { ToolError } from "agent-tool-catalog";
import {
  CALLBACK_LIMITS,
  type CallbackManager,
  type DelayedCallback,
  type DelayedCallbackRequest,
} from "agent-tool-catalog/host";
import { type ConnectionOptions, type Job, Queue, Worker } from "bullmq";
import type { Redis } from "ioredis";
import { redisKey } from "./redis-key.js";

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
   */
  readonly onFire?: (callback: DelayedCallback) => void | Promise<void>;
  /** Pending callbacks allowed per conversation. @defaultValue 10 */
  readonly maxPendingPerConversation?: number;
  /** How long an ended callback stays readable, in ms. @defaultValue 86400000 (a day) */
  readonly retainMs?: number;
}

// Registers a callback if its conversation is under the limit, atomically across processes.
// KEYS[1] the conversation's pending set, KEYS[2] the record; ARGV: id, JSON, limit.
const SCHEDULE = `
local count = redis.call('SCARD', KEYS[1])
if count >= tonumber(ARGV[3]) then return count end
redis.call('SADD', KEYS[1], ARGV[1])
redis.call('SET', KEYS[2], ARGV[2])
return -1
`;

// Moves a pending callback to an end state, once. KEYS[1] the pending set, KEYS[2] the record;
// ARGV: id, new status, conversation (or "" for any), retain ms, error. Returns the new JSON or "".
const END = `
local json = redis.call('GET', KEYS[2])
if not json then return '' end
local callback = cjson.decode(json)
if callback.status ~= 'pending' then return '' end
if ARGV[3] ~= '' and callback.conversationId ~= ARGV[3] then return '' end
callback.status = ARGV[2]
if ARGV[5] ~= '' then callback.error = ARGV[5] end
local out = cjson.encode(callback)
redis.call('SET', KEYS[2], out, 'PX', ARGV[4])
redis.call('SREM', KEYS[1], ARGV[1])
return out
`;

/**
 * A `CallbackManager` on BullMQ delayed jobs: a callback scheduled by any process fires
 * once, on one worker, even after restarts; the spec's limits hold across processes (5 s to 1 h,
 * at most 10 pending per conversation, checked atomically in Redis). Cancelling wins over a
 * firing that has not started: the state change is one atomic step either way.
 * @beta
 */
export class BullMqCallbackManager implements CallbackManager {
  private readonly options: BullMqCallbackManagerOptions;
  private readonly prefix: string;
  private readonly queue: Queue;
  private readonly workers: Worker[] = [];

  constructor(options: BullMqCallbackManagerOptions) {
    this.options = options;
    this.prefix = options.prefix ?? "atc";
    this.queue = new Queue(options.queueName ?? "callbacks", { connection: options.connection, prefix: this.prefix });
  }

  /** {@inheritDoc CallbackManager.schedule} */
  async schedule(request: DelayedCallbackRequest): Promise<DelayedCallback> {
    const { minDelaySeconds, maxDelaySeconds } = CALLBACK_LIMITS;
    if (!(request.delaySeconds >= minDelaySeconds && request.delaySeconds <= maxDelaySeconds)) {
      throw new ToolError(
        "invalid_delay",
        `delay_seconds must be between ${minDelaySeconds} and ${maxDelaySeconds}; got ${request.delaySeconds}.`,
        { data: { field: "delay_seconds" } },
      );
    }
    const now = Date.now();
    const callback: DelayedCallback = {
      id: `cb_${randomUUID().replaceAll("-", "").slice(0, 12)}`,
      conversationId: request.conversationId,
      message: request.message,
      createdAt: now,
      dueAt: now + request.delaySeconds * 1000,
      status: "pending",
    };
    const limit = this.options.maxPendingPerConversation ?? CALLBACK_LIMITS.maxPendingPerConversation;
    const redis = await this.client();
    // The job first, then the record: a process that dies between the two leaves a job that
    // finds no record when it fires (a no-op), never a record listed pending that no job will
    // fire, which would also hold one of the conversation's places for good.
    const job = await this.queue.add(
      "callback",
      { id: callback.id, conversationId: callback.conversationId },
      { delay: request.delaySeconds * 1000, jobId: callback.id, attempts: 1, removeOnComplete: true, removeOnFail: 100 },
    );
    const outcome = (await redis.eval(
      SCHEDULE,
      2,
      this.pendingKey(callback.conversationId),
      this.recordKey(callback.id),
      callback.id,
      JSON.stringify(callback),
      String(limit),
    )) as number;
    if (outcome !== -1) {
      // Only saves a wake-up: without its record the job does nothing.
      await job.remove().catch(() => undefined);
      throw new ToolError(
        "too_many_callbacks",
        `This conversation has ${outcome} pending callbacks already (the limit is ${limit}).`,
        {
          hint: "Cancel one with cancel_delayed_callback, or wait for one to fire.",
        },
      );
    }
    return callback;
  }

  /** {@inheritDoc CallbackManager.cancel} */
  async cancel(conversationId: string, id: string): Promise<DelayedCallback> {
    const ended = await this.end(conversationId, id, "cancelled");
    if (ended === undefined) {
      throw new ToolError("unknown_callback", `There is no pending callback ${JSON.stringify(id)} in this conversation.`, {
        hint: "Call list_delayed_callbacks for the pending ones.",
      });
    }
    // The state change above is what counts; removing the BullMQ job only saves a wake-up.
    await (await this.queue.getJob(id))?.remove().catch(() => undefined);
    return ended;
  }

  /** {@inheritDoc CallbackManager.list} */
  async list(conversationId: string): Promise<DelayedCallback[]> {
    const redis = await this.client();
    const ids = await redis.smembers(this.pendingKey(conversationId));
    if (ids.length === 0) return [];
    const records = await redis.mget(...ids.map((id) => this.recordKey(id)));
    return records
      .filter((json): json is string => json !== null)
      .map((json) => JSON.parse(json) as DelayedCallback)
      .filter((callback) => callback.status === "pending")
      .sort((a, b) => a.dueAt - b.dueAt);
  }

  /** Any callback still readable (pending, or ended within `retainMs`). */
  async get(id: string): Promise<DelayedCallback | undefined> {
    const json = await (await this.client()).get(this.recordKey(id));
    return json === null ? undefined : (JSON.parse(json) as DelayedCallback);
  }

  /** Fires due callbacks in this process (needs `onFire`). Each callback fires on exactly one worker. */
  async startWorker(options: { readonly concurrency?: number } = {}): Promise<void> {
    const onFire = this.options.onFire;
    if (onFire === undefined) throw new TypeError("BullMqCallbackManager.startWorker needs the onFire option.");
    const worker = new Worker(
      this.queue.name,
      async (job: Job) => {
        const { id, conversationId } = job.data as { id: string; conversationId: string };
        const fired = await this.end(conversationId, id, "fired");
        if (fired === undefined) return; // cancelled in the meantime
        try {
          await onFire(fired);
        } catch (error) {
          const failed = { ...fired, status: "failed" as const, error: error instanceof Error ? error.message : String(error) };
          await (await this.client()).set(this.recordKey(id), JSON.stringify(failed), "PX", this.retainMs());
        }
      },
      { connection: this.options.connection, prefix: this.prefix, concurrency: options.concurrency ?? 8, maxStalledCount: 0 },
    );
    worker.on("error", () => undefined);
    this.workers.push(worker);
    await worker.waitUntilReady();
  }

  /** Stops this process's workers and closes the queue. Pending callbacks stay in Redis. */
  async close(): Promise<void> {
    await Promise.all(this.workers.map((worker) => worker.close()));
    await this.queue.close();
  }

  private async end(conversationId: string, id: string, status: DelayedCallback["status"]): Promise<DelayedCallback | undefined> {
    const out = (await (
      await this.client()
    ).eval(
      END,
      2,
      this.pendingKey(conversationId),
      this.recordKey(id),
      id,
      status,
      conversationId,
      String(this.retainMs()),
      "",
    )) as string;
    return out === "" ? undefined : (JSON.parse(out) as DelayedCallback);
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

  private recordKey(id: string): string {
    return redisKey(this.prefix, "callbacks", "record", id);
  }
}
