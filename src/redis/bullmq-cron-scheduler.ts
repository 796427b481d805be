import { randomUUID } from "node:crypto";
import { ToolError } from "agent-tool-catalog";
import {
  type CronClient,
  type CronContinuation,
  type CronExecution,
  type CronJob,
  type CronJobDetails,
  type CronJobSpec,
  type CronShellRunner,
  checkCronJobRunnable,
  parseCronSchedule,
} from "agent-tool-catalog/host";
import { type ConnectionOptions, DelayedError, defaultRepeatStrategy, type Job, Queue, Worker } from "bullmq";
import type { Redis } from "ioredis";
import { checkNumberOption, POSITIVE_COUNT, TIMER_MS } from "../errors/check-number-option.js";
import { countOf } from "../errors/count-of.js";
import { redisNow } from "./redis-clock.js";
import { operationTimeout, withinRedisDeadline } from "./redis-deadline.js";
import { redisKey } from "./redis-key.js";
import {
  parseStoredRecord,
  READ_STORED_RECORD_LUA,
  readStoredRecords,
  UNREADABLE_RECORD_REPLY,
  unreadableStoredRecord,
} from "./stored-record.js";

/**
 * Options of {@link BullMqCronScheduler}.
 *
 * @beta
 */
export interface BullMqCronSchedulerOptions {
  /**
   * Where BullMQ connects: connection options, or an ioredis client (which must have
   * `maxRetriesPerRequest: null` for workers, as BullMQ requires).
   */
  readonly connection: ConnectionOptions;
  /** Prefix of every key (BullMQ's and this scheduler's). @defaultValue `"atc"` */
  readonly prefix?: string;
  /** The BullMQ queue's name. @defaultValue `"cron"` */
  readonly queueName?: string;
  /** Runs shell jobs (on a worker); without it, creating a shell job is refused. */
  readonly runShell?: CronShellRunner;
  /** Runs harness jobs (on a worker); without it, creating a harness job is refused. */
  readonly continueConversation?: CronContinuation;
  /** Executions kept per job, oldest dropped first: a whole number at least 1. @defaultValue 5 (the spec's "last 5 executions") */
  readonly historyLimit?: number;
  /** Characters of output kept per execution (the tail): a whole number at least 1, or `Infinity`. @defaultValue 16000 */
  readonly maxOutputChars?: number;
  /**
   * How long `create`, `list`, `get`, `delete`, `pause` and `resume` wait for Redis before they
   * reject with a `RedisTimeoutError` (whose `mayHaveRun` says whether a write was sent), in ms.
   * @defaultValue 10000
   */
  readonly operationTimeoutMs?: number;
}

/**
 * Options of {@link BullMqCronScheduler.startWorker}.
 *
 * @beta
 */
export interface CronWorkerOptions {
  /** Executions this worker runs at once: a whole number at least 1. @defaultValue 4 */
  readonly concurrency?: number;
  /**
   * How often this worker makes BullMQ's schedulers match the stored jobs (an active job a
   * crashed `create` left without a scheduler is armed; a scheduler without an active job is
   * removed), in whole ms from 1 to 2^31 - 1 (Node runs a longer interval every millisecond).
   * @defaultValue 60000
   */
  readonly reconcileIntervalMs?: number;
}

// Records an execution and drops the oldest beyond the limit. KEYS[1] id list, KEYS[2] records
// hash; ARGV: execution id, JSON, limit.
const RECORD = `
redis.call('LPUSH', KEYS[1], ARGV[1])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
while redis.call('LLEN', KEYS[1]) > tonumber(ARGV[3]) do
  local old = redis.call('RPOP', KEYS[1])
  redis.call('HDEL', KEYS[2], old)
end
return 1
`;

// Changes a job's status when it is in one of the allowed states. KEYS[1] jobs hash, KEYS[2]
// names hash; ARGV: id, new status, now, allowed states (space separated). Returns the new JSON,
// or an error string starting with "!".
const SET_STATUS = `${READ_STORED_RECORD_LUA}
local json = redis.call('HGET', KEYS[1], ARGV[1])
if not json then return '!unknown' end
local job = readRecord(json, 'id', 'status')
if not job then return '${UNREADABLE_RECORD_REPLY}' end
if not string.find(' ' .. ARGV[4] .. ' ', ' ' .. job.status .. ' ', 1, true) then return '!' .. job.status end
job.status = ARGV[2]
job.updatedAt = tonumber(ARGV[3])
local out = cjson.encode(job)
redis.call('HSET', KEYS[1], ARGV[1], out)
if ARGV[2] == 'deleted' then redis.call('HDEL', KEYS[2], job.name) end
return out
`;

// Creates a job: reserves its name and stores it in one step, so a crash cannot leave a name
// without a job (refused forever as a duplicate, and invisible to cron_list). KEYS[1] names hash,
// KEYS[2] jobs hash; ARGV: name, id, JSON. Returns 1, or 0 when the name is taken.
const CREATE = `
if redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2]) == 0 then return 0 end
redis.call('HSET', KEYS[2], ARGV[2], ARGV[3])
return 1
`;

/**
 * When BullMQ's job scheduler fires `expression` next after `afterMs` (UTC), computed by BullMQ's
 * own repeat strategy (cron-parser).
 * @throws ToolError `invalid_schedule` when that parser refuses it (it refuses some forms the
 * shared check takes, e.g. "0 9 * * SAT-SUN"), before anything is stored.
 */
function queueNextRun(expression: string, afterMs: number, asGiven: string): number | undefined {
  try {
    return defaultRepeatStrategy(afterMs, { pattern: expression, tz: "UTC" });
  } catch (error) {
    throw new ToolError(
      "invalid_schedule",
      `Invalid schedule ${JSON.stringify(asGiven)}: the job queue's cron parser refuses it (${error instanceof Error ? error.message : String(error)}).`,
      {
        hint: 'Use 5 fields in UTC with ranges that do not wrap, e.g. "0 9 * * 1-5" or "0 9 * * 6,0".',
        data: { schedule: asGiven },
        cause: error,
      },
    );
  }
}

/**
 * A `CronClient` on BullMQ job schedulers: jobs and their last executions live in Redis,
 * and each firing is one BullMQ job that exactly one worker runs, however many processes run
 * {@link BullMqCronScheduler.startWorker}; schedules survive restarts (they are in Redis, not in
 * timers). Same rules as the in-process scheduler: 5-field UTC cron, unique names among jobs
 * that are not deleted, a firing that comes due while the previous one of the same job still runs
 * is recorded as `skipped`, executions bounded by the job's timeout.
 *
 * A firing whose worker dies mid-execution is not run again (BullMQ's stalled-job retry is off):
 * its execution stays `running` in the history. Firings are at most once, never twice.
 *
 * `create` stores the job (name reserved in the same step) before it arms BullMQ's scheduler, and
 * `list`, `startWorker` and every worker's periodic pass make the schedulers match the stored
 * jobs: a process killed between the two steps leaves an active job that is armed at the next
 * pass, never a scheduler that fires no-ops forever and that nothing lists (tested with a real
 * process killed with `SIGKILL` at each step). Every public method waits at most
 * `operationTimeoutMs` for Redis.
 * @beta
 */
export class BullMqCronScheduler implements CronClient {
  private readonly options: BullMqCronSchedulerOptions;
  private readonly prefix: string;
  private readonly queue: Queue;
  private readonly workers: Worker[] = [];
  private readonly lifetime = new AbortController();
  private readonly operationTimeoutMs: number;
  private reconciler: ReturnType<typeof setInterval> | undefined;
  private closed = false;

  constructor(options: BullMqCronSchedulerOptions) {
    this.options = options;
    this.prefix = options.prefix ?? "atc";
    this.operationTimeoutMs = operationTimeout(options.operationTimeoutMs, "BullMqCronScheduler");
    checkNumberOption(options.historyLimit, "historyLimit", POSITIVE_COUNT, "BullMqCronScheduler");
    checkNumberOption(options.maxOutputChars, "maxOutputChars", { min: 1, integer: true, infinite: true }, "BullMqCronScheduler");
    this.queue = new Queue(options.queueName ?? "cron", { connection: options.connection, prefix: this.prefix });
  }

  /**
   * {@inheritDoc CronClient.create}
   * @throws RedisTimeoutError when Redis does not answer within `operationTimeoutMs` (`mayHaveRun`
   * once the job was sent: it may still be created, and is then armed by the next reconciling pass).
   */
  async create(spec: CronJobSpec): Promise<CronJob> {
    checkCronJobRunnable(spec, this.options);
    const schedule = parseCronSchedule(spec.schedule);
    queueNextRun(schedule.expression, Date.now(), spec.schedule);
    const writes = { sent: false };
    return this.bounded(
      "create",
      () => writes.sent,
      async () => {
        const redis = await this.client();
        const now = Date.now();
        const job: CronJob = {
          ...spec,
          schedule: schedule.expression,
          id: `cron_${randomUUID().replaceAll("-", "").slice(0, 12)}`,
          status: "active",
          createdAt: now,
          updatedAt: now,
        };
        // The job (with its name) first, then the scheduler: a process killed between the two
        // leaves an active job without a scheduler, which the next reconciling pass arms. The
        // other order left a scheduler firing no-ops forever that nothing listed or removed.
        writes.sent = true;
        const created = await redis.eval(CREATE, 2, this.key("names"), this.key("jobs"), spec.name, job.id, JSON.stringify(job));
        if (created !== 1) {
          throw new ToolError("duplicate_job_name", `A cron job named ${JSON.stringify(spec.name)} exists already.`, {
            hint: "Pick another name, or delete the existing job first.",
          });
        }
        // Re-read after arming: a delete or pause racing with this create wins.
        await this.armLatest(job);
        return this.view(job);
      },
    );
  }

  /**
   * The jobs, oldest first (deleted ones only with `includeDeleted`). Makes BullMQ's schedulers
   * match the stored jobs first (see {@link BullMqCronScheduler}).
   * @throws RedisTimeoutError when Redis does not answer within `operationTimeoutMs` (`mayHaveRun`
   * once a scheduler change was sent).
   */
  async list(options: { readonly includeDeleted?: boolean } = {}): Promise<CronJob[]> {
    const writes = { sent: false };
    return this.bounded(
      "list",
      () => writes.sent,
      async () => {
        const all = await this.reconcile(writes);
        return all
          .filter((job) => options.includeDeleted === true || job.status !== "deleted")
          .sort((a, b) => a.createdAt - b.createdAt)
          .map((job) => this.view(job));
      },
    );
  }

  /**
   * {@inheritDoc CronClient.get}
   * @throws RedisTimeoutError when Redis does not answer within `operationTimeoutMs`.
   */
  async get(id: string, executions: number): Promise<CronJobDetails | undefined> {
    return this.bounded("get", false, async () => {
      const redis = await this.client();
      const json = await redis.hget(this.key("jobs"), id);
      if (json === null) return undefined;
      const ids = await redis.lrange(this.key("executions", id), 0, Math.max(0, executions) - 1);
      const records = ids.length === 0 ? [] : await redis.hmget(this.key("execution-records", id), ...ids);
      return {
        job: this.view(this.parseJob(json, id)),
        executions: readStoredRecords<CronExecution>(records, ["id", "jobId", "status"]),
      };
    });
  }

  /**
   * Arms the scheduler of every active job that has none, and removes every scheduler whose job
   * is not active or does not exist. Returns the stored jobs. Each change goes through
   * {@link BullMqCronScheduler.armLatest}, so a pause, resume or delete racing with it still wins.
   */
  private async reconcile(writes: { sent: boolean }): Promise<CronJob[]> {
    const redis = await this.client();
    // Schedulers first, then jobs: `create` stores its job before it arms its scheduler, so every
    // scheduler seen here whose job the later read lacks is truly orphaned. The other order saw a
    // create landing between the two reads as "armed but not stored" and removed its scheduler.
    const armed = new Set((await this.queue.getJobSchedulers(0, -1)).map((scheduler) => scheduler.key));
    // A job record another program wrote, unreadable, is left out (nothing can fire it) rather
    // than fail every listing and every worker's pass.
    const all = readStoredRecords<CronJob>(Object.values(await redis.hgetall(this.key("jobs"))), ["id", "status"]);
    const stored = new Map(all.map((job) => [job.id, job]));
    for (const job of all) {
      if ((job.status === "active") === armed.has(job.id)) continue;
      writes.sent = true;
      // One job BullMQ refuses to arm (a schedule stored before the parser check) must not fail
      // the listing or stop the others: it is tried again at the next pass.
      await this.armLatest(job).catch(() => undefined);
    }
    for (const id of armed) {
      if (stored.has(id)) continue;
      // Checked again just before removing (cheap): the job's record is never deleted once written.
      if ((await redis.hexists(this.key("jobs"), id)) === 1) continue;
      writes.sent = true;
      await this.queue.removeJobScheduler(id);
    }
    return all;
  }

  /**
   * {@inheritDoc CronClient.delete}
   * @throws RedisTimeoutError when Redis does not answer within `operationTimeoutMs` (it may still land).
   */
  async delete(id: string): Promise<CronJob> {
    return this.bounded("delete", true, () => this.setStatus(id, "deleted", ["active", "paused"]));
  }

  /**
   * {@inheritDoc CronClient.pause}
   * @throws RedisTimeoutError as `delete` does.
   */
  async pause(id: string): Promise<CronJob> {
    return this.bounded("pause", true, () => this.setStatus(id, "paused", ["active"]));
  }

  /**
   * {@inheritDoc CronClient.resume}
   * @throws RedisTimeoutError as `delete` does.
   */
  async resume(id: string): Promise<CronJob> {
    return this.bounded("resume", true, () => this.setStatus(id, "active", ["paused"]));
  }

  /**
   * Runs firings in this process. Start one (or more) in every worker process; each firing runs
   * in exactly one of them. Also makes the schedulers match the stored jobs now and every
   * `reconcileIntervalMs`.
   */
  async startWorker(options: CronWorkerOptions = {}): Promise<void> {
    checkNumberOption(options.concurrency, "concurrency", { min: 1, integer: true }, "BullMqCronScheduler.startWorker");
    checkNumberOption(options.reconcileIntervalMs, "reconcileIntervalMs", TIMER_MS, "BullMqCronScheduler.startWorker");
    const worker = new Worker(this.queue.name, (job: Job, token?: string) => this.fire(job, token), {
      connection: this.options.connection,
      prefix: this.prefix,
      concurrency: options.concurrency ?? 4,
      maxStalledCount: 0,
    });
    worker.on("error", () => undefined);
    this.workers.push(worker);
    await worker.waitUntilReady();
    // close() may have run during the wait: an interval started now would run on a closed queue.
    if (this.closed) return;
    const pass = () => void this.reconcile({ sent: false }).catch(() => undefined);
    pass();
    this.reconciler ??= setInterval(pass, options.reconcileIntervalMs ?? 60_000);
    this.reconciler.unref();
  }

  /** Stops this process's workers (executions in flight are aborted) and closes the queue. Jobs stay in Redis. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.reconciler !== undefined) clearInterval(this.reconciler);
    this.reconciler = undefined;
    this.lifetime.abort(new ToolError("scheduler_closed", "The cron scheduler was closed."));
    await Promise.all(this.workers.map((worker) => worker.close()));
    await this.queue.close();
  }

  private async fire(firing: Job, token?: string): Promise<void> {
    const { jobId } = firing.data as { jobId: string };
    const redis = await this.client();
    // BullMQ takes a firing when this process's clock reaches its slot: a worker whose clock ran a
    // minute ahead ran every firing a minute early. Before its slot by Redis's clock, the firing
    // waits the time left, measured here as a duration (BullMQ judges the date by this clock).
    const early = Number(/:(\d+)$/.exec(firing.id ?? "")?.[1] ?? 0) - (await redisNow(redis));
    if (early > 0) {
      await firing.moveToDelayed(Date.now() + early, token);
      throw new DelayedError();
    }
    const json = await redis.hget(this.key("jobs"), jobId);
    if (json === null) return;
    const job = this.parseJob(json, jobId);
    if (job.status !== "active") return;
    // One firing per scheduled time, whatever BullMQ does: a scheduler re-upserted (resume) after
    // the slot's job completed and was removed can add a job with the same slot again.
    const slot = /:(\d+)$/.exec(firing.id ?? "")?.[1] ?? String(Math.floor(Date.now() / 60_000) * 60_000);
    if ((await redis.set(this.key("fired", jobId, slot), "1", "PX", 86_400_000, "NX")) === null) return;
    const executionId = `exec_${randomUUID().replaceAll("-", "").slice(0, 12)}`;
    const startedAt = Date.now();
    const lockKey = this.key("running", jobId);
    const locked = await redis.set(lockKey, executionId, "PX", job.timeoutSeconds * 1000 + 30_000, "NX");
    if (locked === null) {
      await this.record(jobId, {
        id: executionId,
        jobId,
        startedAt,
        finishedAt: startedAt,
        status: "skipped",
        error: "The previous execution was still running.",
      });
      return;
    }
    const running: CronExecution = { id: executionId, jobId, startedAt, status: "running" };
    await this.record(jobId, running);
    let outcome: Partial<CronExecution>;
    const controller = new AbortController();
    const timer = setTimeout(
      () => controller.abort(new ToolError("timeout", `Timed out after ${job.timeoutSeconds} s.`)),
      job.timeoutSeconds * 1000,
    );
    try {
      outcome = await this.runOnce(job, AbortSignal.any([controller.signal, this.lifetime.signal]));
    } catch (error) {
      outcome = controller.signal.aborted
        ? { status: "timed_out", error: `Timed out after ${job.timeoutSeconds} s.` }
        : { status: "failed", error: error instanceof Error ? error.message : String(error) };
    } finally {
      clearTimeout(timer);
      await redis.del(lockKey);
    }
    await redis.hset(
      this.key("execution-records", jobId),
      executionId,
      JSON.stringify({ ...running, ...outcome, finishedAt: Date.now() }),
    );
  }

  private async runOnce(job: CronJob, signal: AbortSignal): Promise<Partial<CronExecution>> {
    const { runShell, continueConversation } = this.options;
    const timeoutMs = job.timeoutSeconds * 1000;
    // Made only where a race listens to it: one made for a job this worker has no runner for
    // rejected at close() with nobody listening, an unhandled rejection that ends a Node host.
    const aborted = () =>
      new Promise<never>((_, reject) => {
        signal.addEventListener("abort", () => reject(signal.reason), { once: true });
      });
    if (job.executionType === "shell" && runShell !== undefined) {
      const result = await Promise.race([runShell({ job, command: job.command ?? "", timeoutMs, signal }), aborted()]);
      return {
        status: result.exitCode === 0 ? "succeeded" : "failed",
        exitCode: result.exitCode,
        output: this.tail(result.output),
      };
    }
    if (job.executionType === "harness" && continueConversation !== undefined) {
      const summary = await Promise.race([
        continueConversation({ job, conversationId: job.conversationId, prompt: job.prompt ?? "", signal }),
        aborted(),
      ]);
      return { status: "succeeded", output: summary === undefined ? undefined : this.tail(summary) };
    }
    return { status: "failed", error: `No runner for ${job.executionType} jobs on this worker.` };
  }

  private async record(jobId: string, execution: CronExecution): Promise<void> {
    await (await this.client()).eval(
      RECORD,
      2,
      this.key("executions", jobId),
      this.key("execution-records", jobId),
      execution.id,
      JSON.stringify(execution),
      String(this.options.historyLimit ?? 5),
    );
  }

  private async setStatus(id: string, status: CronJob["status"], from: readonly CronJob["status"][]): Promise<CronJob> {
    const redis = await this.client();
    const out = (await redis.eval(
      SET_STATUS,
      2,
      this.key("jobs"),
      this.key("names"),
      id,
      status,
      String(Date.now()),
      from.join(" "),
    )) as string;
    if (out === "!unknown") {
      throw new ToolError("unknown_job", `There is no cron job with id ${JSON.stringify(id)}.`, {
        hint: "Call cron_list for the ids.",
      });
    }
    if (out === UNREADABLE_RECORD_REPLY) throw unreadableStoredRecord(`${this.key("jobs")} ${id}`);
    if (out.startsWith("!")) {
      throw new ToolError("invalid_job_state", `Cron job ${id} is ${out.slice(1)}; it cannot become ${status}.`);
    }
    const job = this.parseJob(out, id);
    await this.armLatest(job);
    return this.view(job);
  }

  /**
   * Arms (or disarms) the scheduler for `job`, then again for as long as the stored status
   * changed meanwhile. The status change is atomic but the scheduler is a second step: a pause in
   * one process and a resume in another could otherwise end with the pause's removal landing
   * last, leaving the job listed `active` with no scheduler (it would never fire again). The last
   * process to arm reads the status after its own step, so the scheduler ends up matching it.
   */
  private async armLatest(job: CronJob): Promise<void> {
    let armed = job;
    for (let round = 0; round < 10; round++) {
      await this.arm(armed);
      const json = await (await this.client()).hget(this.key("jobs"), job.id);
      if (json === null) return;
      const latest = this.parseJob(json, job.id);
      if ((latest.status === "active") === (armed.status === "active")) return;
      armed = latest;
    }
  }

  private async arm(job: CronJob): Promise<void> {
    if (job.status === "active") {
      await this.queue.upsertJobScheduler(
        job.id,
        { pattern: job.schedule, tz: "UTC" },
        { name: "cron", data: { jobId: job.id }, opts: { attempts: 1, removeOnComplete: true, removeOnFail: 100 } },
      );
    } else {
      await this.queue.removeJobScheduler(job.id);
    }
  }

  private view(job: CronJob): CronJob {
    // The time BullMQ will fire it, read with BullMQ's own parser: the shared check's parser
    // (croner) reads a few forms differently (e.g. "5L" in day-of-week).
    // A job stored before that check (e.g. "SAT-SUN", which BullMQ refuses) has no next run to
    // show; it must not make every listing fail.
    let nextRunAt: number | undefined;
    if (job.status === "active") {
      try {
        nextRunAt = queueNextRun(job.schedule, Date.now(), job.schedule);
      } catch {
        nextRunAt = undefined;
      }
    }
    return { ...job, nextRunAt };
  }

  private bounded<T>(method: string, mayHaveRun: boolean | (() => boolean), step: () => Promise<T>): Promise<T> {
    return withinRedisDeadline(`BullMqCronScheduler.${method}`, this.operationTimeoutMs, mayHaveRun, step);
  }

  private tail(output: string): string {
    const limit = this.options.maxOutputChars ?? 16_000;
    return output.length <= limit
      ? output
      : `[first ${countOf(output.length - limit, "character")} dropped]\n${output.slice(-limit)}`;
  }

  private async client(): Promise<Redis> {
    return (await this.queue.client) as unknown as Redis;
  }

  /** Cron job `id` as stored; one this package did not write is `invalid_stored_record`, not a `SyntaxError`. */
  private parseJob(json: string, id: string): CronJob {
    return parseStoredRecord<CronJob>(json, ["id", "status"], `${this.key("jobs")} ${id}`);
  }

  private key(...parts: string[]): string {
    return redisKey(this.prefix, "cron", ...parts);
  }
}
