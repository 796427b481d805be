import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import { REDIS_NOW_LUA, redisNow } from "./redis-clock.js";
import {
  checkDurableJobSettings,
  DEFAULT_REDIS_OPERATION_TIMEOUT_MS,
  operationTimeout,
  RedisTimeoutError,
  withinRedisDeadline,
} from "./redis-deadline.js";
import { redisKey } from "./redis-key.js";
import { parseStoredRecord } from "./stored-record.js";

/** The jobs one process runs itself (an in-process subagent manager or workflow service). */
export interface LocalJobs<Snapshot> {
  /** The job's state in this process, or `undefined` when this process does not know it. */
  get(id: string): Promise<Snapshot | undefined>;
  /** Resolves when the job ends or `timeoutMs` passes. */
  wait(id: string, options: { readonly timeoutMs: number }): Promise<Snapshot | undefined>;
  /** Cancels the job. */
  cancel(id: string): Promise<Snapshot | undefined>;
}

/**
 * The timing and naming every durable job kind shares; a host's `undefined` takes the default.
 * The public options of the subagent manager and the workflow service document the same fields.
 */
export interface DurableJobSettings {
  /** Prefix of every key and channel. @defaultValue `"atc"` */
  readonly prefix?: string | undefined;
  /** A running job not renewed for this long is reported interrupted. @defaultValue 15000 */
  readonly leaseMs?: number | undefined;
  /** How long an ended job stays readable, in ms. @defaultValue 86400000 (a day) */
  readonly retainMs?: number | undefined;
  /** How often a wait re-reads the record when no notification arrives, in ms. @defaultValue 500 */
  readonly pollIntervalMs?: number | undefined;
  /** How long `get` and `cancel` wait for Redis before a `RedisTimeoutError`, in ms. @defaultValue 10000 */
  readonly operationTimeoutMs?: number | undefined;
}

const DEFAULT_SETTINGS = {
  prefix: "atc",
  leaseMs: 15_000,
  retainMs: 86_400_000,
  pollIntervalMs: 500,
  operationTimeoutMs: DEFAULT_REDIS_OPERATION_TIMEOUT_MS,
} as const;

/** Options of {@link DurableJobs}. */
export interface DurableJobsOptions<Snapshot> extends DurableJobSettings {
  readonly redis: Redis;
  /** The job kind: keys are `<prefix>:<kind>:<id>`, channels `<prefix>:<kind>s:ended|cancel`. */
  readonly kind: string;
  /** The jobs this process runs. */
  readonly local: LocalJobs<Snapshot>;
  idOf(snapshot: Snapshot): string;
  isRunning(snapshot: Snapshot): boolean;
  /** The snapshot to report once the lease of a running job ran out (its process stopped). */
  interrupted(snapshot: Snapshot, now: number): Snapshot;
  /**
   * Data saved next to the job by every snapshot this owner writes (claim, update, end), read
   * when the write is sent, e.g. a workflow run's checkpoint; `undefined` (or no function) keeps
   * what is attached. A job that ends here before its claim lands is then never recorded without
   * it: an {@link DurableJobs.attach} sent before the claim or after the end is refused.
   */
  attachment?(id: string): string | undefined;
}

/**
 * What Redis holds per job, as a hash: `owner` names the process that runs it; `running` ("1" or
 * "0") mirrors the snapshot's status so the scripts below need not know the snapshot's shape;
 * `leaseUntil` (ms since the epoch by Redis's clock: set and judged by the scripts below, so hosts
 * whose clocks disagree agree on it); `snapshot` (JSON, never re-encoded by a script).
 */
interface JobRecord<Snapshot> {
  readonly running: boolean;
  readonly leaseUntil: number;
  readonly snapshot: Snapshot;
}

// Writes the owner's snapshot. KEYS[1] the record; ARGV: owner, snapshot JSON, running ("1"/"0"),
// ttl ms, claim ("1": start or resume), channel, id, lease ms, attachment ("": keep what is
// attached). A claim succeeds when there is no record or the record has ended (a resume); any other write only while this owner's record
// still runs, so a job another process already reported failed (lease run out) never turns
// completed or running again. Returns 1 when written, 0 when refused.
const WRITE = `
local owner = redis.call('HGET', KEYS[1], 'owner')
if owner then
  local running = redis.call('HGET', KEYS[1], 'running') == '1'
  if ARGV[5] == '1' then
    if running then return 0 end
  elseif owner ~= ARGV[1] or not running then
    return 0
  end
elseif ARGV[5] ~= '1' then
  return 0
end
${REDIS_NOW_LUA}
local leaseUntil = string.format('%.0f', now + tonumber(ARGV[8]))
redis.call('HSET', KEYS[1], 'owner', ARGV[1], 'running', ARGV[3], 'leaseUntil', leaseUntil, 'snapshot', ARGV[2])
if ARGV[9] ~= '' then redis.call('HSET', KEYS[1], 'attached', ARGV[9]) end
redis.call('PEXPIRE', KEYS[1], ARGV[4])
if ARGV[3] == '0' then redis.call('PUBLISH', ARGV[6], ARGV[7]) end
return 1
`;

// Renews the lease while this owner's record runs. KEYS[1] the record; ARGV: owner, lease ms, ttl
// ms, snapshot JSON or "". Returns 1 when renewed, 0 when the job is no longer this owner's to run.
const RENEW = `
local fields = redis.call('HMGET', KEYS[1], 'owner', 'running')
if fields[1] ~= ARGV[1] or fields[2] ~= '1' then return 0 end
${REDIS_NOW_LUA}
redis.call('HSET', KEYS[1], 'leaseUntil', string.format('%.0f', now + tonumber(ARGV[2])))
if ARGV[4] ~= '' then redis.call('HSET', KEYS[1], 'snapshot', ARGV[4]) end
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
`;

// Saves data next to the job while this owner's record runs. KEYS[1] the record; ARGV: owner, data.
const ATTACH = `
local fields = redis.call('HMGET', KEYS[1], 'owner', 'running')
if fields[1] ~= ARGV[1] or fields[2] ~= '1' then return 0 end
redis.call('HSET', KEYS[1], 'attached', ARGV[2])
return 1
`;

// Ends a running job whose lease ran out (by Redis's clock). KEYS[1] the record; ARGV: unused, the
// ended snapshot JSON, retain ms, channel, id. Returns the snapshot after the check (once: the
// first reader wins).
const EXPIRE_LEASE = `
local fields = redis.call('HMGET', KEYS[1], 'running', 'leaseUntil', 'snapshot')
if not fields[3] then return false end
${REDIS_NOW_LUA}
if fields[1] == '1' and tonumber(fields[2]) < now then
  redis.call('HSET', KEYS[1], 'running', '0', 'snapshot', ARGV[2])
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
  redis.call('PUBLISH', ARGV[4], ARGV[5])
  return ARGV[2]
end
return fields[3]
`;

/**
 * Jobs (subagents, workflow runs) that one process runs and every process sees, shared by the
 * Redis subagent manager and workflow service. The running process owns the job's record and
 * renews a lease on it; any process can read, wait for or ask to cancel it. When the lease runs
 * out (the process died or stalled), the first reader marks the job ended with the
 * `interrupted` snapshot; the owner's later writes are then refused and it cancels its local
 * copy, so a job is never reported running forever, never ends twice and never keeps running
 * unseen.
 */
export class DurableJobs<Snapshot> {
  private readonly owner = randomUUID();
  private readonly running = new Set<string>();
  private readonly waiters = new Set<() => void>();
  private subscriber: Redis | undefined;
  private subscribed: Promise<void> | undefined;
  private heartbeat: ReturnType<typeof setInterval> | undefined;

  private readonly options: DurableJobsOptions<Snapshot> &
    Required<{ [K in keyof DurableJobSettings]: NonNullable<DurableJobSettings[K]> }>;

  constructor(options: DurableJobsOptions<Snapshot>) {
    checkDurableJobSettings(options, `Redis ${options.kind} jobs`);
    this.options = {
      ...options,
      prefix: options.prefix ?? DEFAULT_SETTINGS.prefix,
      leaseMs: options.leaseMs ?? DEFAULT_SETTINGS.leaseMs,
      retainMs: options.retainMs ?? DEFAULT_SETTINGS.retainMs,
      pollIntervalMs: options.pollIntervalMs ?? DEFAULT_SETTINGS.pollIntervalMs,
      operationTimeoutMs: operationTimeout(options.operationTimeoutMs, `Redis ${options.kind} jobs`),
    };
  }

  /**
   * Claims a job this process just started or is about to resume and publishes its snapshot;
   * while it runs, renews its lease and publishes its end. Returns false (and writes nothing) when
   * the record exists and still runs, i.e. another process owns it. When Redis cannot be reached
   * the job is cancelled here and the error rethrown: a `RedisTimeoutError` after
   * `operationTimeoutMs` (a claim that lands later is never renewed, so readers report the job
   * interrupted once its lease runs out).
   *
   * @param options.follow - false: the job is not running here yet; call {@link DurableJobs.follow} once it is
   */
  async claim(snapshot: Snapshot, options: { readonly follow?: boolean } = {}): Promise<boolean> {
    const id = this.options.idOf(snapshot);
    let claimed: boolean;
    let sent = false;
    try {
      claimed = await withinRedisDeadline(
        `${this.options.kind} claim`,
        this.options.operationTimeoutMs,
        () => sent,
        async () => {
          await this.subscribe();
          sent = true;
          return this.write(snapshot, true);
        },
      );
    } catch (error) {
      // Redis unreachable: a job nobody else can see must not run on here.
      if (this.options.isRunning(snapshot)) await this.options.local.cancel(id).catch(() => undefined);
      throw error;
    }
    if (!claimed) return false;
    if (this.options.isRunning(snapshot) && options.follow !== false) this.follow(id);
    return true;
  }

  /** Renews the lease of a job claimed here while it runs here, and publishes its end. */
  follow(id: string): void {
    if (this.running.has(id)) return;
    this.running.add(id);
    this.startHeartbeat();
    void this.publishEnd(id);
  }

  /**
   * Saves data next to a job this process runs (a workflow run's checkpoint), kept with the
   * record; false when the job is no longer ours to write.
   */
  async attach(id: string, data: string): Promise<boolean> {
    return (await this.options.redis.eval(ATTACH, 1, this.key(id), this.owner, data)) === 1;
  }

  /**
   * The data last attached to a job, or `undefined`.
   * @throws RedisTimeoutError when Redis does not answer within `operationTimeoutMs`.
   */
  async attached(id: string): Promise<string | undefined> {
    const data = await withinRedisDeadline(`${this.options.kind} attached`, this.options.operationTimeoutMs, false, () =>
      this.options.redis.hget(this.key(id), "attached"),
    );
    return data ?? undefined;
  }

  /**
   * Publishes a newer snapshot of a job this process runs; false when it is no longer ours to write.
   * @throws RedisTimeoutError when Redis does not answer within `operationTimeoutMs` (it may still land).
   */
  update(snapshot: Snapshot): Promise<boolean> {
    return withinRedisDeadline(`${this.options.kind} update`, this.options.operationTimeoutMs, true, () =>
      this.write(snapshot, false),
    );
  }

  /**
   * The job as every process sees it; a running job whose lease ran out is ended first.
   * @throws RedisTimeoutError when Redis does not answer within `operationTimeoutMs`: never
   * `undefined` ("unknown") for a job it could not read.
   */
  get(id: string): Promise<Snapshot | undefined> {
    return withinRedisDeadline(`${this.options.kind} get`, this.options.operationTimeoutMs, false, () => this.read(id));
  }

  /** {@link DurableJobs.get} without its bound, for callers that bound the wait themselves. */
  private async read(id: string): Promise<Snapshot | undefined> {
    // The lease is judged by Redis's clock (it set the lease too), not by this host's.
    const [[running, leaseUntil, json], now] = await Promise.all([
      this.options.redis.hmget(this.key(id), "running", "leaseUntil", "snapshot"),
      redisNow(this.options.redis),
    ]);
    if (json === null || json === undefined) return undefined;
    const record: JobRecord<Snapshot> = {
      running: running === "1",
      leaseUntil: Number(leaseUntil),
      snapshot: this.parseSnapshot(json, id),
    };
    if (record.running && record.leaseUntil < now) return this.expire(id, record);
    return record.snapshot;
  }

  /**
   * Resolves when the job ends, `timeoutMs` passes or `signal` aborts; woken by the end's
   * notification. Bounded even when Redis stops answering (a stopped or hung server, a client
   * without a command timeout): it then resolves with the snapshot it last read, and rejects
   * with a {@link RedisTimeoutError} when it read none (it cannot say whether the job exists).
   */
  async wait(
    id: string,
    options: { readonly timeoutMs: number; readonly signal?: AbortSignal | undefined },
  ): Promise<Snapshot | undefined> {
    const deadline = Date.now() + options.timeoutMs;
    const bounded = <T>(step: Promise<T>) => beforeDeadline(step, deadline, options.signal);
    // Not awaited past the deadline: notifications only wake the polling below sooner.
    await bounded(this.subscribe());
    let last: { readonly snapshot: Snapshot | undefined } | undefined;
    for (;;) {
      const read = await bounded(this.read(id));
      if (read === STOPPED) {
        if (last !== undefined) return last.snapshot;
        // A RedisTimeoutError, so a tool reports redis_timeout (not tool_failed); a wait writes nothing.
        throw new RedisTimeoutError(`${this.options.kind} wait`, options.timeoutMs, false);
      }
      const snapshot = read;
      last = { snapshot };
      if (snapshot === undefined || !this.options.isRunning(snapshot)) return snapshot;
      const left = deadline - Date.now();
      if (left <= 0 || options.signal?.aborted === true) return snapshot;
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          this.waiters.delete(done);
          options.signal?.removeEventListener("abort", done);
          resolve();
        };
        // Polls too: a lease runs out without any notification.
        const timer = setTimeout(done, Math.min(left, this.options.pollIntervalMs));
        this.waiters.add(done);
        options.signal?.addEventListener("abort", done, { once: true });
      });
    }
  }

  /**
   * Cancels a job: here when this process runs it, else by asking its process over pub/sub.
   * @throws RedisTimeoutError when Redis does not answer within `operationTimeoutMs` (a job
   * running here is cancelled all the same; a request to another process may still reach it).
   */
  cancel(id: string): Promise<Snapshot | undefined> {
    return withinRedisDeadline(`${this.options.kind} cancel`, this.options.operationTimeoutMs, true, () => this.cancelJob(id));
  }

  private async cancelJob(id: string): Promise<Snapshot | undefined> {
    if (this.running.has(id)) {
      const snapshot = await this.options.local.cancel(id);
      if (snapshot !== undefined) await this.write(snapshot, false);
      return snapshot;
    }
    const current = await this.read(id);
    if (current === undefined || !this.options.isRunning(current)) return current;
    await this.subscribe();
    await this.options.redis.publish(this.channel("cancel"), id);
    // The running process cancels and writes the end state; give it a moment to land.
    return (await this.wait(id, { timeoutMs: 2_000 })) ?? current;
  }

  /** Stops the heartbeat and subscription (jobs still running here then fail their lease elsewhere). */
  close(): void {
    if (this.heartbeat !== undefined) clearInterval(this.heartbeat);
    this.heartbeat = undefined;
    this.subscriber?.disconnect();
    this.subscriber = undefined;
    this.subscribed = undefined;
    for (const wake of [...this.waiters]) wake();
  }

  private async publishEnd(id: string): Promise<void> {
    try {
      for (;;) {
        if (!this.running.has(id)) return;
        const snapshot = await this.options.local.wait(id, { timeoutMs: 60_000 });
        if (snapshot === undefined) return;
        if (!this.options.isRunning(snapshot)) {
          await this.write(snapshot, false);
          return;
        }
      }
    } catch {
      // Redis unreachable: the lease runs out and readers report the job interrupted.
    } finally {
      this.running.delete(id);
    }
  }

  private async write(snapshot: Snapshot, claim: boolean): Promise<boolean> {
    const { leaseMs, retainMs } = this.options;
    const running = this.options.isRunning(snapshot);
    const id = this.options.idOf(snapshot);
    const written = await this.options.redis.eval(
      WRITE,
      1,
      this.key(id),
      this.owner,
      JSON.stringify(snapshot),
      running ? "1" : "0",
      String(running ? retainMs + leaseMs : retainMs),
      claim ? "1" : "0",
      this.channel("ended"),
      id,
      String(leaseMs),
      this.options.attachment?.(id) ?? "",
    );
    return written === 1;
  }

  /** Ends a job whose process stopped renewing its lease (atomically: once). */
  private async expire(id: string, record: JobRecord<Snapshot>): Promise<Snapshot | undefined> {
    const ended = this.options.interrupted(record.snapshot, Date.now());
    const after = (await this.options.redis.eval(
      EXPIRE_LEASE,
      1,
      this.key(id),
      "",
      JSON.stringify(ended),
      String(this.options.retainMs),
      this.channel("ended"),
      id,
    )) as string | null;
    return after === null ? undefined : this.parseSnapshot(after, id);
  }

  private async renew(id: string): Promise<void> {
    const { redis, leaseMs, retainMs, local } = this.options;
    const snapshot = await local.get(id);
    const renewed = await redis.eval(
      RENEW,
      1,
      this.key(id),
      this.owner,
      String(leaseMs),
      String(retainMs + leaseMs),
      snapshot !== undefined && this.options.isRunning(snapshot) ? JSON.stringify(snapshot) : "",
    );
    if (renewed === 1 || !this.running.has(id)) return;
    // The job just ended here (its end write won the race): nothing runs on.
    const now = await local.get(id);
    if (now === undefined || !this.options.isRunning(now)) return;
    // Another process reported the job ended (our lease ran out while we stalled): stop it here
    // rather than let it run on unseen and then be refused.
    this.running.delete(id);
    await local.cancel(id);
  }

  private startHeartbeat(): void {
    if (this.heartbeat !== undefined) return;
    this.heartbeat = setInterval(
      () => {
        for (const id of this.running) void this.renew(id).catch(() => undefined);
        if (this.running.size === 0 && this.heartbeat !== undefined) {
          clearInterval(this.heartbeat);
          this.heartbeat = undefined;
        }
      },
      Math.max(50, Math.floor(this.options.leaseMs / 3)),
    );
    this.heartbeat.unref();
  }

  private subscribe(): Promise<void> {
    this.subscribed ??= (async () => {
      const subscriber = this.options.redis.duplicate();
      this.subscriber = subscriber;
      subscriber.on("error", () => undefined);
      subscriber.on("message", (channel: string, id: string) => {
        if (channel === this.channel("cancel")) {
          if (this.running.has(id)) void this.cancel(id).catch(() => undefined);
          return;
        }
        for (const wake of [...this.waiters]) wake();
      });
      await subscriber.subscribe(this.channel("ended"), this.channel("cancel"));
    })().catch((error: unknown) => {
      // Tried again by the next caller rather than failing every later call.
      this.subscriber?.disconnect();
      this.subscriber = undefined;
      this.subscribed = undefined;
      throw error;
    });
    return this.subscribed;
  }

  /** Where a field of job `id` is stored (key and hash field), for errors naming it. */
  keyOf(id: string, field: string): string {
    return `${this.key(id)} ${field}`;
  }

  /** A job's stored snapshot; one this package did not write is `invalid_stored_record` naming the key. */
  private parseSnapshot(json: string, id: string): Snapshot {
    return parseStoredRecord<Snapshot>(json, ["status"], this.keyOf(id, "snapshot"));
  }

  private key(id: string): string {
    return redisKey(this.options.prefix, this.options.kind, id);
  }

  private channel(kind: "ended" | "cancel"): string {
    return redisKey(this.options.prefix, `${this.options.kind}s`, kind);
  }
}

/** What {@link beforeDeadline} resolves with when the deadline passed or the signal aborted first. */
const STOPPED: unique symbol = Symbol("stopped");

/**
 * `step`'s value, or {@link STOPPED} once `deadline` (ms since the epoch) passes or `signal`
 * aborts; a later rejection of `step` is then ignored.
 */
async function beforeDeadline<T>(
  step: Promise<T>,
  deadline: number,
  signal: AbortSignal | undefined,
): Promise<T | typeof STOPPED> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  step.catch(() => undefined);
  try {
    return await Promise.race([
      step,
      new Promise<typeof STOPPED>((resolve) => {
        timer = setTimeout(() => resolve(STOPPED), Math.max(0, deadline - Date.now()));
        onAbort = () => resolve(STOPPED);
        if (signal?.aborted === true) onAbort();
        else signal?.addEventListener("abort", onAbort, { once: true });
      }),
    ]);
  } finally {
    clearTimeout(timer);
    if (onAbort !== undefined) signal?.removeEventListener("abort", onAbort);
  }
}
