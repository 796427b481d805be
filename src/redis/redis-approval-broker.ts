import { randomUUID } from "node:crypto";
import {
  type ApprovalBroker,
  type ApprovalDecideOptions,
  type ApprovalDecisionRefusal,
  type ApprovalDecisionResult,
  type ApprovalEvents,
  type ApprovalRequest,
  type ApprovalResolution,
  type ApprovalWaitOptions,
  approvalArgumentsDigest,
  EventBus,
  jsonAtAnyDepth,
} from "agent-tool-catalog";
import type { Redis } from "ioredis";
import { checkNumberOption, TIMER_MS } from "../errors/check-number-option.js";
import { formatWait } from "../errors/format-wait.js";
import { checkApprovalTimeout } from "../policy/check-approval-timeout.js";
import { REDIS_NOW_LUA, redisNow } from "./redis-clock.js";
import { operationTimeout, RETAIN_MS, withinRedisDeadline } from "./redis-deadline.js";
import { redisKey } from "./redis-key.js";
import { readStoredRecord } from "./stored-record.js";

/**
 * Options of {@link RedisApprovalBroker}.
 *
 * @beta
 */
export interface RedisApprovalBrokerOptions {
  /** The connection (an ioredis client the host owns and closes). A duplicate is made for pub/sub. */
  readonly redis: Redis;
  /** Prefix of every key and channel. @defaultValue `"atc"` */
  readonly prefix?: string;
  /** How long a request waits before it is denied: a whole number of ms from 1 to 2^31 - 1 (a timer holds it; the Redis broker's PEXPIRE takes no fraction), on every broker and on `createRun`. @defaultValue 300000 (five minutes) */
  readonly timeoutMs?: number;
  /**
   * How often a waiting process re-reads its requests, in ms: decisions published while its
   * subscription was reconnecting are picked up at the latest after this long. Whole ms from 1
   * to 2^31 - 1 (Node runs a longer interval every millisecond).
   * @defaultValue 1000
   */
  readonly pollIntervalMs?: number;
  /** How long a decided request stays readable ({@link RedisApprovalBroker.resolution}), in whole ms at least 1. @defaultValue 86400000 (a day) */
  readonly retainMs?: number;
  /**
   * Characters of the call's JSON input stored for people to read; longer inputs are cut (the
   * digest covers all of it). A whole number at least 0, or `Infinity`.
   * @defaultValue 16000
   */
  readonly maxStoredInputChars?: number;
  /**
   * How long `pending`, `approve`, `deny` and `resolution` wait for Redis before they reject with
   * a `RedisTimeoutError`, in ms. A call waiting for approval is bounded by its own deadline.
   * @defaultValue 10000
   */
  readonly operationTimeoutMs?: number;
}

/**
 * A request as the Redis broker stores it: also the digest that binds a decision to one call.
 *
 * @beta
 */
export interface StoredApprovalRequest extends ApprovalRequest {
  /** SHA-256 of the run id, call id, tool name and JSON input: a decision applies to this call only. */
  readonly argumentsDigest: string;
  /** True when `input` was cut to `maxStoredInputChars` for storage. */
  readonly inputTruncated: boolean;
}

/**
 * What {@link RedisApprovalBroker.approve} and `deny` can check before deciding.
 *
 * @beta
 */
export interface ApprovalDecisionOptions {
  /** Decide only if the request is for exactly these arguments (what the person saw). */
  readonly argumentsDigest?: string;
  /**
   * `approve` only: the approver was shown that the request's input was cut for storage
   * (`inputTruncated`) and approves it anyway. Without it a truncated request is not approved
   * (`approve` answers false and the request stays pending, to be denied or approved so): an
   * approver cannot approve what it was not shown without saying so.
   * @defaultValue false
   */
  readonly inputTruncatedSeen?: boolean;
}

interface Waiter {
  readonly request: StoredApprovalRequest;
  readonly settle: (resolution: ApprovalResolution) => void;
}

// Decides a request once, atomically: only a pending request changes, and a decision by a person
// after the deadline is refused (the deadline wins). Deadlines are Redis's clock (STORE set it),
// so hosts whose clocks disagree judge them alike. KEYS[1] the request hash, KEYS[2] the pending
// set; ARGV: id, decision, reason, resolvedBy, "overdue" (deny only once past the deadline: a
// reader tidying up, not the waiter giving up) or "", required digest or "", retain ms, channel.
// Returns 1 when decided, 0 when it was decided already (not by its deadline), -1 past its deadline
// (this call wrote the timeout denial), -2 digest mismatch, -3 an approval by a person of a request
// whose stored input was cut, without ARGV[9] == 'seen' (the approver was not shown all of it and
// did not say it saw the mark), -4 unknown (no hash), -5 not yet overdue ("overdue" only),
// -6 denied by its deadline already. Distinct codes so `decide` can say why (DECISION_REFUSALS).
// A request whose hash is gone (Redis restarted from an older snapshot, the key evicted) leaves the
// pending set too, or its id would stay there for good and be read again by every pending().
const DECIDE = `
local status = redis.call('HGET', KEYS[1], 'status')
if status == false then redis.call('ZREM', KEYS[2], ARGV[1]) return -4 end
if status ~= 'pending' then
  if redis.call('HGET', KEYS[1], 'resolvedBy') == 'timeout' then return -6 end
  return 0
end
if ARGV[6] ~= '' and redis.call('HGET', KEYS[1], 'digest') ~= ARGV[6] then return -2 end
if ARGV[2] == 'approved' and ARGV[4] == 'host' and ARGV[9] ~= 'seen' and redis.call('HGET', KEYS[1], 'truncated') == '1' then return -3 end
${REDIS_NOW_LUA}
local overdue = now >= tonumber(redis.call('HGET', KEYS[1], 'expiresAt'))
if ARGV[5] == 'overdue' and not overdue then return -5 end
local decision = ARGV[2]
local reason = ARGV[3]
local by = ARGV[4]
if by == 'host' and overdue then
  decision = 'denied'
  reason = 'nobody approved it before its deadline'
  by = 'timeout'
end
redis.call('HSET', KEYS[1], 'status', decision, 'reason', reason, 'resolvedBy', by, 'resolvedAt', string.format('%.0f', now))
redis.call('PEXPIRE', KEYS[1], ARGV[7])
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('PUBLISH', ARGV[8], ARGV[1])
if by == 'timeout' and ARGV[4] == 'host' then return -1 end
return 1
`;

// Stores a new request with its deadline by Redis's clock. KEYS[1] the request hash, KEYS[2] the
// pending set; ARGV: id, request JSON, digest, run id, timeout ms, retain ms, '1' when the stored
// input was cut (else '0'). Returns
// {requestedAt, expiresAt} as Redis's clock has them. The first write is refused whole under OOM.
const STORE = `
${REDIS_NOW_LUA}
local requestedAt = string.format('%.0f', now)
local expiresAt = string.format('%.0f', now + tonumber(ARGV[5]))
redis.call('HSET', KEYS[1], 'status', 'pending', 'request', ARGV[2], 'digest', ARGV[3], 'runId', ARGV[4],
  'requestedAt', requestedAt, 'expiresAt', expiresAt, 'truncated', ARGV[7])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[5]) + tonumber(ARGV[6]))
redis.call('ZADD', KEYS[2], expiresAt, ARGV[1])
return {requestedAt, expiresAt}
`;

// The waiter takes a decision exactly once: a second taker (a duplicate waiter, a replay) gets 0.
// A request that is gone (Redis restarted empty, the key evicted) answers {0, 'gone'}.
const CONSUME = `
local status = redis.call('HGET', KEYS[1], 'status')
if status == false then return {0, 'gone'} end
if status == 'pending' then return {0, ''} end
if redis.call('HSETNX', KEYS[1], 'consumed', '1') == 0 then return {0, status} end
return {1, status}
`;

/**
 * An `ApprovalBroker` on Redis: a call waiting for approval in one process is listed,
 * approved or denied from any other (an HTTP endpoint behind a load balancer, a CLI, a worker).
 *
 * Guarantees (tested with several real processes and a real `redis-server`):
 * - a decision is taken once: `approve`/`deny` change only a pending request, atomically, so two
 *   people answering at once get one `true` and one `false`; the deadline, an abort and `close()`
 *   decide through the same script, and the waiting call takes the decision that won (an approval
 *   that answered `true` runs the call, also when the deadline passed while subscribing);
 * - a decision binds to one call: the stored request carries a digest of run, call, tool and
 *   arguments, and `approve(id, { argumentsDigest })` refuses when they differ;
 * - deadlines are Redis's clock (`TIME` in the scripts), so hosts whose clocks disagree judge them alike;
 * - deadlines hold without the waiting process: a request past its deadline is denied (by
 *   `"timeout"`) by whoever touches it next (`pending`, `approve`, `deny`, `resolution`), so a
 *   request whose process died is never approved late, and a resumed run reads the denial with
 *   {@link RedisApprovalBroker.resolution};
 * - a waiting call keeps its process alive until it is decided or times out;
 * - a request Redis lost while its call waited (restarted without persistence, evicted) denies
 *   the call (by `"abort"`) at the next poll, saying so: nobody could approve it any more.
 *
 * Events: `approval.requested` and `approval.resolved` fire in the process that waits.
 * @beta
 */
export class RedisApprovalBroker implements ApprovalBroker {
  /** Events `approval.requested` and `approval.resolved` of the requests this process waits on. */
  readonly events = new EventBus<ApprovalEvents>();
  private readonly redis: Redis;
  private readonly prefix: string;
  private readonly timeoutMs: number;
  private readonly pollIntervalMs: number;
  private readonly retainMs: number;
  private readonly maxStoredInputChars: number;
  private readonly operationTimeoutMs: number;
  private readonly waiters = new Map<string, Waiter>();
  private subscriber: Redis | undefined;
  private subscribed: Promise<void> | undefined;
  private poller: ReturnType<typeof setInterval> | undefined;
  private closed = false;

  constructor(options: RedisApprovalBrokerOptions) {
    this.redis = options.redis;
    this.prefix = options.prefix ?? "atc";
    const where = "RedisApprovalBroker";
    checkApprovalTimeout(options.timeoutMs, "timeoutMs", where);
    this.timeoutMs = options.timeoutMs ?? 300_000;
    this.pollIntervalMs = checkNumberOption(options.pollIntervalMs, "pollIntervalMs", TIMER_MS, where) ?? 1000;
    this.retainMs = checkNumberOption(options.retainMs, "retainMs", RETAIN_MS, where) ?? 86_400_000;
    this.maxStoredInputChars =
      checkNumberOption(options.maxStoredInputChars, "maxStoredInputChars", { min: 0, integer: true, infinite: true }, where) ??
      16_000;
    this.operationTimeoutMs = operationTimeout(options.operationTimeoutMs, "RedisApprovalBroker");
  }

  /** The digest a decision is bound to, for a call's run id, call id, tool name and input. */
  static argumentsDigest(request: Pick<ApprovalRequest, "runId" | "callId" | "toolName" | "input">): string {
    return approvalArgumentsDigest(request);
  }

  /** {@inheritDoc ApprovalBroker.request} */
  async request(
    input: Omit<ApprovalRequest, "id" | "requestedAt" | "expiresAt">,
    options: ApprovalWaitOptions = {},
  ): Promise<ApprovalResolution> {
    if (this.closed) return { id: "", decision: "denied", reason: "the approval broker was closed", resolvedBy: "abort" };
    checkApprovalTimeout(options.timeoutMs, "timeoutMs", "RedisApprovalBroker.request");
    const timeoutMs = options.timeoutMs ?? this.timeoutMs;
    const requestedAt = Date.now();
    // Not JSON.stringify alone: its stack overflow on deeply nested arguments failed the request,
    // and the call answered that the approval service failed while Redis was up (round 46).
    const json = jsonAtAnyDepth(input.input) ?? "null";
    const inputTruncated = json.length > this.maxStoredInputChars;
    const request: StoredApprovalRequest = Object.freeze({
      ...input,
      id: `apr_${randomUUID().replaceAll("-", "")}`,
      requestedAt,
      expiresAt: requestedAt + timeoutMs,
      argumentsDigest: RedisApprovalBroker.argumentsDigest(input),
      inputTruncated,
    });
    if (options.signal?.aborted === true) {
      return { id: request.id, decision: "denied", reason: "the call was cancelled", resolvedBy: "abort" };
    }
    const stored = storedRequestJson(
      request,
      inputTruncated
        ? JSON.stringify(`${json.slice(0, this.maxStoredInputChars)}…`)
        : input.input === undefined
          ? undefined
          : json,
    );
    // Subscribing is best effort and runs beside the write: polling picks decisions up without it,
    // and Redis being down fails the write below (the run reports it), not twice as slowly.
    const subscribed = this.subscribe();
    const written = this.store(request, stored, timeoutMs);
    const storing = written.then(() => subscribed);
    // A Redis that takes the write but never answers (stopped, hung) must not hold the call past
    // its deadline or its abort. But the request may be in Redis, listed and approved, while the
    // subscription (a second connection) is still on its way: a call denied here while Redis
    // records an approval that answered `true` would be denied for the caller and approved for the
    // approver. So the deadline or abort ends the wait through `giveUp` once the write alone has
    // landed (DECIDE, the one place a request is decided, then the decision that won is read).
    const stalled = await untilStoredOr(storing, timeoutMs, options.signal);
    if (stalled !== undefined && !(await landsWithin(written, GIVE_UP_GRACE_MS))) {
      // Not written within the grace (Redis hung or refusing it): nobody can have decided it, so
      // it is denied here, and in Redis by a denial sent now on the same connection, queued right
      // behind the write, so a request stored late is denied as it lands (not approvable later).
      const reason = stalled === "abort" ? "the call was cancelled" : timeoutReason(timeoutMs);
      void this.decideInRedis(request.id, "denied", reason, stalled).catch(() => undefined);
      return { id: request.id, decision: "denied", reason, resolvedBy: stalled };
    }
    return new Promise<ApprovalResolution>((resolve) => {
      const { signal } = options;
      // Ref'd on purpose: a script whose only work is a call waiting for approval must not exit
      // before the decision or the timeout denial. A deadline that passed while subscribing gives
      // up at once, through the same path.
      const timer = setTimeout(
        () => this.giveUp(request.id, timeoutReason(timeoutMs), "timeout"),
        stalled === "timeout" ? 0 : timeoutMs,
      );
      const onAbort = () => this.giveUp(request.id, "the call was cancelled", "abort");
      const settle = (resolution: ApprovalResolution) => {
        if (!this.waiters.delete(request.id)) return;
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        if (this.waiters.size === 0) this.stopPolling();
        // Frozen: one payload for every listener (and the registry's bus after them).
        this.events.emit("approval.resolved", Object.freeze({ ...resolution, request }));
        resolve(resolution);
      };
      this.waiters.set(request.id, { request, settle });
      this.startPolling();
      this.events.emit("approval.requested", request);
      // An abort while the request was being stored (the awaits above) fired no listener.
      if (signal?.aborted === true) onAbort();
      else signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  /**
   * Writes a new request in one script, its deadline `timeoutMs` from now by Redis's clock (the
   * record outlives it by `retainMs` so a late reader still sees why it was denied). Redis refusing
   * it (OOM, READONLY) rejects with Redis's error and writes nothing.
   */
  private async store(request: StoredApprovalRequest, stored: string, timeoutMs: number): Promise<void> {
    await this.redis.eval(
      STORE,
      2,
      this.requestKey(request.id),
      this.pendingKey(),
      request.id,
      stored,
      request.argumentsDigest,
      request.runId,
      String(timeoutMs),
      String(this.retainMs),
      request.inputTruncated ? "1" : "0",
    );
  }

  /**
   * Approves or denies a pending request from any process, atomically (one Lua script), saying
   * why not when it does not: `"unknown"` (no such request, or gone: decided longer ago than
   * Redis keeps it), `"decided"` (decided already), `"expired"` (its deadline passed: it is denied
   * for that, by `"timeout"`, even when this call found it pending), `"digest_mismatch"`
   * (`argumentsDigest` given and the request is for other arguments) and `"input_truncated"`
   * (an approval of a request whose stored input was cut, without `inputTruncatedSeen`); the last
   * two leave it pending. The same answers as `InMemoryApprovalBroker.decide`.
   * @throws RedisTimeoutError when Redis does not answer within `operationTimeoutMs`: the
   * decision is not confirmed (it may still land, and counts only if it lands before the
   * request's deadline).
   *
   * @example
   * ```ts
   * import { RedisApprovalBroker } from "agent-tool-catalog/redis";
   * import { Redis } from "ioredis";
   *
   * const broker = new RedisApprovalBroker({ redis: new Redis("redis://127.0.0.1:6379") });
   * async function answer(id: string, digestShown: string): Promise<string> {
   *   const outcome = await broker.decide(id, "approved", { argumentsDigest: digestShown });
   *   return outcome.ok ? "approved" : `not approved: ${outcome.reason}`;
   * }
   * ```
   */
  async decide(
    id: string,
    decision: "approved" | "denied",
    options: ApprovalDecideOptions = {},
  ): Promise<ApprovalDecisionResult> {
    const outcome = await this.decideAsHost("RedisApprovalBroker.decide", id, decision, options);
    if (outcome === 1) return { ok: true };
    return { ok: false, reason: DECISION_REFUSALS.get(outcome) ?? "decided" };
  }

  /**
   * Approves a pending request, from any process. False when it is not pending (decided, timed
   * out, unknown), with `argumentsDigest`, when it is for other arguments, and for a request whose
   * stored input was cut (`inputTruncated`) unless `inputTruncatedSeen` is true (it stays pending).
   * {@link RedisApprovalBroker.decide} says which.
   * @throws RedisTimeoutError when Redis does not answer within `operationTimeoutMs`: the
   * approval is not confirmed (it may still land, and counts only if it lands before the
   * request's deadline).
   */
  async approve(id: string, options: ApprovalDecisionOptions = {}): Promise<boolean> {
    return (await this.decideAsHost("RedisApprovalBroker.approve", id, "approved", options)) === 1;
  }

  /**
   * Denies a pending request with a reason for the model, from any process.
   * {@link RedisApprovalBroker.decide} says why when it answers false.
   * @throws RedisTimeoutError as `approve` does.
   */
  async deny(id: string, reason?: string, options: ApprovalDecisionOptions = {}): Promise<boolean> {
    const denial = reason === undefined ? options : { ...options, reason };
    return (await this.decideAsHost("RedisApprovalBroker.deny", id, "denied", denial)) === 1;
  }

  /**
   * A person's decision (`resolvedBy: "host"`) through DECIDE, bounded by `operationTimeoutMs`
   * under `operation`'s name; DECIDE's code. What `decide`, `approve` and `deny` share: a denial's
   * reason defaults to "denied by the user", and only an approval carries `inputTruncatedSeen`.
   */
  private decideAsHost(
    operation: string,
    id: string,
    decision: "approved" | "denied",
    options: ApprovalDecideOptions,
  ): Promise<number> {
    return this.bounded(operation, true, () =>
      decision === "approved"
        ? this.decideInRedis(id, "approved", "", "host", {
            digest: options.argumentsDigest,
            truncatedSeen: options.inputTruncatedSeen === true,
          })
        : this.decideInRedis(id, "denied", options.reason ?? "denied by the user", "host", { digest: options.argumentsDigest }),
    );
  }

  /**
   * Pending requests of every process, oldest first; requests past their deadline are denied first.
   * `requestedAt` and `expiresAt` are Redis's clock, the one deadlines are judged by (the
   * requesting host's clock may differ).
   * @throws RedisTimeoutError when Redis does not answer within `operationTimeoutMs`; its
   * `mayHaveRun` is true when it had found overdue requests and sent their denial (which may
   * still land), false when it had only read.
   */
  pending(filter: { readonly runId?: string } = {}): Promise<StoredApprovalRequest[]> {
    const writes = { sent: false };
    return this.bounded(
      "RedisApprovalBroker.pending",
      () => writes.sent,
      () => this.readPending(filter, writes),
    );
  }

  private async readPending(filter: { readonly runId?: string }, writes: { sent: boolean }): Promise<StoredApprovalRequest[]> {
    await this.expireOverdue(writes);
    const ids = await this.redis.zrange(this.pendingKey(), 0, -1);
    if (ids.length === 0) return [];
    const pipeline = this.redis.pipeline();
    for (const id of ids) pipeline.hmget(this.requestKey(id), "status", "request", "requestedAt", "expiresAt");
    const rows = (await pipeline.exec()) ?? [];
    const out: StoredApprovalRequest[] = [];
    for (const [error, row] of rows) {
      const [status, json, requestedAt, expiresAt] = (error === null ? row : []) as (string | null | undefined)[];
      if (status !== "pending" || typeof json !== "string") continue;
      // One entry another program (or version) wrote, unreadable, made every listing throw: no
      // approver could see the real requests beside it. It is left out (nobody could be shown it);
      // its deadline still denies it.
      const request = readStoredRecord<StoredApprovalRequest>(json, ["id", "runId", "callId", "toolName"]);
      if (request === undefined) continue;
      if (filter.runId !== undefined && request.runId !== filter.runId) continue;
      // Shown in Redis's clock, the one its deadline is judged by (not the requesting host's).
      out.push(
        typeof requestedAt === "string" && typeof expiresAt === "string"
          ? { ...request, requestedAt: Number(requestedAt), expiresAt: Number(expiresAt) }
          : request,
      );
    }
    return out.sort((a, b) => a.requestedAt - b.requestedAt);
  }

  /**
   * How a request ended, from any process (e.g. a run resumed after the waiting process died):
   * `undefined` while it is pending or when it is unknown (or past `retainMs`). A pending request
   * past its deadline is denied by this call.
   * @throws RedisTimeoutError when Redis does not answer within `operationTimeoutMs`; `mayHaveRun`
   * as for `pending` (true once it had sent the denial of an overdue request).
   */
  resolution(id: string): Promise<ApprovalResolution | undefined> {
    const writes = { sent: false };
    return this.bounded(
      "RedisApprovalBroker.resolution",
      () => writes.sent,
      () => this.readResolution(id, writes),
    );
  }

  private bounded<T>(operation: string, mayHaveRun: boolean | (() => boolean), step: () => Promise<T>): Promise<T> {
    return withinRedisDeadline(operation, this.operationTimeoutMs, mayHaveRun, step);
  }

  private async readResolution(id: string, writes: { sent: boolean }): Promise<ApprovalResolution | undefined> {
    const [expiresAt, now] = await Promise.all([this.redis.hget(this.requestKey(id), "expiresAt"), redisNow(this.redis)]);
    if (expiresAt !== null && Number(expiresAt) <= now) {
      // Denies it only while still pending and overdue (DECIDE checks); once sent, it may land.
      writes.sent = true;
      await this.decideInRedis(id, "denied", "nobody approved it before its deadline", "timeout", { overdueOnly: true });
    }
    const [status, reason, resolvedBy] = await this.redis.hmget(this.requestKey(id), "status", "reason", "resolvedBy");
    if (status !== "approved" && status !== "denied") return undefined;
    return {
      id,
      decision: status,
      reason: status === "denied" ? (reason ?? undefined) : undefined,
      resolvedBy: (resolvedBy ?? "host") as ApprovalResolution["resolvedBy"],
    };
  }

  /**
   * Stops listening; calls still waiting in this process are denied (by `"abort"`), unless a
   * decision already won in Redis (an approval that answered `true` runs its call). Does not close
   * `redis`. Waits at most `operationTimeoutMs` for Redis to record the denials.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // Recorded in Redis where it can be, waiting at most operationTimeoutMs (a stopped server
    // held close() forever); with Redis unreachable the waiters are still denied below, and a
    // denial that lands later still wins over a late approval (a request is decided once).
    await withinRedisDeadline("RedisApprovalBroker.close", this.operationTimeoutMs, true, () =>
      Promise.allSettled(
        // A decision that won before this denial (an approval that answered `true`) is handed to
        // its call, not overridden by the local denial below.
        [...this.waiters.keys()].map(async (id) => {
          await this.decideInRedis(id, "denied", "the approval broker was closed", "abort");
          await this.collect(id);
        }),
      ),
    ).catch(() => undefined);
    for (const waiter of this.waiters.values()) {
      waiter.settle({ id: waiter.request.id, decision: "denied", reason: "the approval broker was closed", resolvedBy: "abort" });
    }
    this.stopPolling();
    const subscriber = this.subscriber;
    this.subscriber = undefined;
    if (subscriber !== undefined) subscriber.disconnect();
  }

  /**
   * Ends a wait this process stops on (its deadline, its call's abort). The denial is recorded in
   * Redis, and a decision that won the race (approved just before the deadline) is handed over;
   * but the call settles within a second (`GIVE_UP_GRACE_MS`) whatever Redis does: unreachable (its
   * client retrying), or restarted without the request. Denying locally is safe: a person's
   * approval after the deadline is refused by Redis, and an approval counts only once its waiter
   * consumed it.
   */
  private giveUp(id: string, reason: string, resolvedBy: "timeout" | "abort"): void {
    const denyLocally = () => this.waiters.get(id)?.settle({ id, decision: "denied", reason, resolvedBy });
    const grace = setTimeout(denyLocally, GIVE_UP_GRACE_MS);
    void (async () => {
      try {
        await this.decideInRedis(id, "denied", reason, resolvedBy);
        // Decided by someone else first (0 above): read what they decided.
        if (this.waiters.has(id)) await this.collect(id);
      } catch {
        // Redis unreachable: denied locally.
      }
      clearTimeout(grace);
      denyLocally();
    })();
  }

  private async decideInRedis(
    id: string,
    decision: "approved" | "denied",
    reason: string,
    resolvedBy: ApprovalResolution["resolvedBy"],
    options: { readonly digest?: string | undefined; readonly overdueOnly?: boolean; readonly truncatedSeen?: boolean } = {},
  ): Promise<number> {
    const outcome = (await this.redis.eval(
      DECIDE,
      2,
      this.requestKey(id),
      this.pendingKey(),
      id,
      decision,
      reason,
      resolvedBy,
      options.overdueOnly === true ? "overdue" : "",
      options.digest ?? "",
      String(this.retainMs),
      this.channel(),
      options.truncatedSeen === true ? "seen" : "",
    )) as number;
    // Only the codes that may have decided it (or found it decided by another host's script).
    if (COLLECT_AFTER.has(outcome) && this.waiters.has(id)) await this.collect(id);
    return outcome;
  }

  // Hands a decided request to its local waiter, once (the CONSUME script guards replays).
  private async collect(id: string): Promise<void> {
    const waiter = this.waiters.get(id);
    if (waiter === undefined) return;
    const [taken, decided] = (await this.redis.eval(CONSUME, 1, this.requestKey(id))) as [number, string];
    // Stored before the wait began and kept past its deadline: gone means Redis lost it. Nobody
    // can list or approve it any more, so the call ends now, not at its deadline (minutes later).
    if (decided === "gone") {
      waiter.settle({ id, decision: "denied", reason: LOST_REASON, resolvedBy: "abort" });
      return;
    }
    // Pending (or gone) when CONSUME ran: nothing to hand over. Judged by CONSUME's own answer,
    // not by the read below: a decision landing in between would otherwise look "already used".
    if (taken !== 1 && decided === "") return;
    const [status, reason, resolvedBy] = await this.redis.hmget(this.requestKey(id), "status", "reason", "resolvedBy");
    if (status === null || status === "pending") return;
    const approved = status === "approved" && taken === 1;
    waiter.settle({
      id,
      decision: approved ? "approved" : "denied",
      reason: approved ? undefined : taken === 1 ? (reason ?? "denied") : "this approval was already used",
      resolvedBy: (resolvedBy ?? "host") as ApprovalResolution["resolvedBy"],
    });
  }

  private async expireOverdue(writes: { sent: boolean }): Promise<void> {
    // Overdue by Redis's clock, which set the deadlines: a host whose clock runs ahead must not deny
    // requests still within theirs.
    const overdue = await this.redis.zrangebyscore(this.pendingKey(), 0, await redisNow(this.redis));
    if (overdue.length > 0) writes.sent = true;
    await Promise.all(
      overdue.map((id) =>
        this.decideInRedis(id, "denied", "nobody approved it before its deadline", "timeout", { overdueOnly: true }),
      ),
    );
  }

  /** Subscribes once; a failed attempt is dropped (not cached), so the next request tries again. */
  private subscribe(): Promise<void> {
    this.subscribed ??= (async () => {
      const subscriber = this.redis.duplicate();
      this.subscriber = subscriber;
      subscriber.on("message", (_channel: string, id: string) => {
        if (this.waiters.has(id)) void this.collect(id).catch(() => undefined);
      });
      // A failed subscription is not fatal: polling still picks decisions up.
      subscriber.on("error", () => undefined);
      await subscriber.subscribe(this.channel());
      // The subscriber connection must not keep the process alive; waiting calls' timers do.
      (subscriber as unknown as { stream?: { unref?: () => void } }).stream?.unref?.();
    })().catch(() => {
      // Not fatal: polling picks decisions up. Without this, one failure while Redis was down
      // would be cached and every later request would fail after Redis came back.
      this.subscriber?.disconnect();
      this.subscriber = undefined;
      this.subscribed = undefined;
    });
    return this.subscribed;
  }

  private startPolling(): void {
    if (this.poller !== undefined) return;
    this.poller = setInterval(() => {
      for (const id of this.waiters.keys()) void this.collect(id).catch(() => undefined);
    }, this.pollIntervalMs);
    this.poller.unref();
  }

  private stopPolling(): void {
    if (this.poller !== undefined) clearInterval(this.poller);
    this.poller = undefined;
  }

  private requestKey(id: string): string {
    return redisKey(this.prefix, "approval", id);
  }

  private pendingKey(): string {
    return redisKey(this.prefix, "approvals", "pending");
  }

  private channel(): string {
    return redisKey(this.prefix, "approvals", "decided");
  }
}

/**
 * Resolves `undefined` once `storing` settles (rejecting with its error), or `"timeout"` /
 * `"abort"` when the deadline passes or `signal` aborts first.
 */
async function untilStoredOr(
  storing: Promise<void>,
  timeoutMs: number,
  signal: AbortSignal | undefined,
): Promise<"timeout" | "abort" | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  try {
    return await Promise.race([
      storing.then(() => undefined),
      new Promise<"timeout" | "abort">((resolve) => {
        timer = setTimeout(() => resolve("timeout"), timeoutMs);
        onAbort = () => resolve("abort");
        signal?.addEventListener("abort", onAbort, { once: true });
      }),
    ]);
  } finally {
    clearTimeout(timer);
    if (onAbort !== undefined) signal?.removeEventListener("abort", onAbort);
  }
}

/** Whether `written` resolves within `ms` (false when it rejects: nothing was stored). */
async function landsWithin(written: Promise<void>, ms: number): Promise<boolean> {
  return untilStoredOr(written, ms, undefined).then(
    (stalled) => stalled === undefined,
    () => false,
  );
}

/**
 * How long a call that stopped waiting (deadline, abort) waits for Redis to record that before it
 * is denied locally: a client retrying an unreachable server would otherwise hold it for as long
 * as its retries last.
 */
const GIVE_UP_GRACE_MS = 1_000;

/** What DECIDE's refusals mean to a caller of `decide`. */
const DECISION_REFUSALS = new Map<number, ApprovalDecisionRefusal>([
  [0, "decided"],
  [-1, "expired"],
  [-2, "digest_mismatch"],
  [-3, "input_truncated"],
  [-4, "unknown"],
  [-6, "expired"],
]);

/** DECIDE's answers after which a local waiter collects the decision (what `!== 0` was before -4..-6). */
const COLLECT_AFTER = new Set([1, -1, -2, -3]);

const LOST_REASON = "the approval request is gone from Redis (restarted empty or evicted), so nobody can approve it";

function timeoutReason(timeoutMs: number): string {
  return `nobody approved it within ${formatWait(timeoutMs)}`;
}

/**
 * The stored record of `request`: its fields as JSON, with `input` given as JSON text (the input's,
 * or a string of the cut text; none for no input), so the input is not walked again by a
 * recursive `JSON.stringify`.
 */
function storedRequestJson(request: StoredApprovalRequest, input: string | undefined): string {
  const { input: _input, ...fields } = request;
  const head = JSON.stringify(fields);
  if (input === undefined) return head;
  return `${head.slice(0, -1)}${head === "{}" ? "" : ","}"input":${input}}`;
}
