import { randomUUID } from "node:crypto";
import { ToolError } from "agent-tool-catalog";
import { checkNumberOption, POSITIVE_COUNT } from "../../errors/check-number-option.js";
import { countOf } from "../../errors/count-of.js";
import { hostMadeId } from "../../errors/host-made-id.js";
import { type Clock, systemClock } from "../shared/clock.js";
import type { CronClient, CronExecution, CronJob, CronJobDetails, CronJobSpec } from "./cron-client.js";
import { type CronContinuation, type CronShellRunner, checkCronJobRunnable } from "./cron-runners.js";
import { type CronSchedule, parseCronSchedule } from "./cron-schedule.js";

/**
 * Options of {@link InProcessCronScheduler}.
 *
 * @public
 */
export interface InProcessCronSchedulerOptions {
  /** Time source and timers. @defaultValue the system clock (timers unref'd) */
  readonly clock?: Clock;
  /** Runs shell jobs; without it, creating a shell job is refused. */
  readonly runShell?: CronShellRunner;
  /** Runs harness jobs; without it, creating a harness job is refused. */
  readonly continueConversation?: CronContinuation;
  /**
   * Executions kept per job, oldest dropped first: a whole number at least 1, as on
   * `BullMqCronScheduler` (0 and `Infinity` were accepted here only: one scheduler kept nothing or
   * everything where the other refused the option).
   * @defaultValue 50
   */
  readonly historyLimit?: number;
  /**
   * Characters of output kept per execution (the tail): a whole number at least 1, or `Infinity`
   * (0 kept the whole output: `slice(-0)` is everything).
   * @defaultValue 16000
   */
  readonly maxOutputChars?: number;
  /**
   * Makes job and execution ids: a job id must be a non-empty string no kept job has (a create
   * given a repeated one is refused, since the job it replaced would keep its timer and run on
   * after being deleted).
   * @defaultValue `cron_` / `exec_` and random hex
   */
  readonly createId?: (kind: "job" | "execution") => string;
}

interface StoredJob {
  job: CronJob;
  readonly schedule: CronSchedule;
  timer: unknown;
  running: boolean;
  readonly executions: CronExecution[];
}

const randomId = (kind: "job" | "execution") =>
  `${kind === "job" ? "cron" : "exec"}_${randomUUID().replaceAll("-", "").slice(0, 12)}`;

/**
 * A cron scheduler in this process, on an injectable clock: each active job holds one timer for
 * its next run; executions are bounded by the job's timeout and recorded in its history. A run
 * that comes due while the previous one is still going is recorded as `skipped`. Jobs live in
 * memory: a host that needs them to survive restarts implements {@link CronClient} on its store.
 * @public
 */
export class InProcessCronScheduler implements CronClient {
  private readonly clock: Clock;
  private readonly options: InProcessCronSchedulerOptions;
  private readonly jobs = new Map<string, StoredJob>();
  private readonly inFlight = new Set<Promise<void>>();
  private readonly lifetime = new AbortController();
  private readonly createId: (kind: "job" | "execution") => string;

  constructor(options: InProcessCronSchedulerOptions = {}) {
    checkNumberOption(options.historyLimit, "historyLimit", POSITIVE_COUNT, "InProcessCronScheduler");
    checkNumberOption(
      options.maxOutputChars,
      "maxOutputChars",
      { min: 1, integer: true, infinite: true },
      "InProcessCronScheduler",
    );
    this.options = options;
    this.clock = options.clock ?? systemClock;
    this.createId = options.createId ?? randomId;
  }

  /** {@inheritDoc CronClient.create} */
  async create(spec: CronJobSpec): Promise<CronJob> {
    checkCronJobRunnable(spec, this.options);
    const schedule = parseCronSchedule(spec.schedule);
    const taken = [...this.jobs.values()].some((stored) => stored.job.status !== "deleted" && stored.job.name === spec.name);
    if (taken) {
      throw new ToolError("duplicate_job_name", `A cron job named ${JSON.stringify(spec.name)} exists already.`, {
        hint: "Pick another name, or delete the existing job first.",
      });
    }
    const id = hostMadeId(this.createId("job"), this.jobs, {
      where: "InProcessCronScheduler",
      item: "job",
      holder: "a job it keeps",
      outcome: "Nothing was created.",
    });
    const now = this.clock.now();
    const job: CronJob = {
      ...spec,
      schedule: schedule.expression,
      id,
      status: "active",
      createdAt: now,
      updatedAt: now,
    };
    const stored: StoredJob = { job, schedule, timer: undefined, running: false, executions: [] };
    this.jobs.set(job.id, stored);
    this.arm(stored);
    return stored.job;
  }

  /** {@inheritDoc CronClient.list} */
  async list(options: { readonly includeDeleted?: boolean } = {}): Promise<CronJob[]> {
    return [...this.jobs.values()]
      .map((stored) => stored.job)
      .filter((job) => options.includeDeleted === true || job.status !== "deleted");
  }

  /** {@inheritDoc CronClient.get} */
  async get(id: string, executions: number): Promise<CronJobDetails | undefined> {
    const stored = this.jobs.get(id);
    if (stored === undefined) return undefined;
    return { job: stored.job, executions: stored.executions.slice(-executions).reverse() };
  }

  /** {@inheritDoc CronClient.delete} */
  async delete(id: string): Promise<CronJob> {
    return this.setStatus(id, "deleted", ["active", "paused"]);
  }

  /** {@inheritDoc CronClient.pause} */
  async pause(id: string): Promise<CronJob> {
    return this.setStatus(id, "paused", ["active"]);
  }

  /** {@inheritDoc CronClient.resume} */
  async resume(id: string): Promise<CronJob> {
    return this.setStatus(id, "active", ["paused"]);
  }

  /** Resolves when no execution is in flight (tests wait on it after moving the clock). */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all(this.inFlight);
  }

  /** Stops every timer and aborts executions in flight. Jobs stay readable. */
  close(): void {
    for (const stored of this.jobs.values()) this.clock.clearTimeout(stored.timer);
    this.lifetime.abort(new ToolError("scheduler_closed", "The cron scheduler was closed."));
  }

  private stored(id: string): StoredJob {
    const stored = this.jobs.get(id);
    if (stored === undefined) {
      throw new ToolError("unknown_job", `There is no cron job with id ${JSON.stringify(id)}.`, {
        hint: "Call cron_list for the ids.",
      });
    }
    return stored;
  }

  private setStatus(id: string, status: CronJob["status"], from: readonly CronJob["status"][]): CronJob {
    const stored = this.stored(id);
    if (!from.includes(stored.job.status)) {
      throw new ToolError("invalid_job_state", `Cron job ${id} is ${stored.job.status}; it cannot become ${status}.`);
    }
    stored.job = { ...stored.job, status, updatedAt: this.clock.now() };
    this.arm(stored);
    return stored.job;
  }

  /**
   * Sets the timer for the next firing strictly after `now`, and after `firedSlot` (the time the
   * firing that just ran was for). Timers run on a monotonic clock and `now()` on the wall clock:
   * a wall clock set back (or slewed by NTP) while the timer waited reads a moment before the slot
   * it fired for, and the same slot would fire twice.
   */
  private arm(stored: StoredJob, firedSlot?: number): void {
    this.clock.clearTimeout(stored.timer);
    stored.timer = undefined;
    const now = this.clock.now();
    const after = firedSlot === undefined ? now : Math.max(now, firedSlot);
    const next = stored.job.status === "active" && !this.lifetime.signal.aborted ? stored.schedule.nextAfter(after) : undefined;
    stored.job = { ...stored.job, nextRunAt: next };
    if (next === undefined) return;
    stored.timer = this.clock.setTimeout(() => this.fire(stored, next), Math.max(0, next - now));
  }

  private fire(stored: StoredJob, slot: number): void {
    stored.timer = undefined;
    if (stored.job.status !== "active") return;
    if (stored.running) {
      const now = this.clock.now();
      this.record(stored, {
        id: this.createId("execution"),
        jobId: stored.job.id,
        startedAt: now,
        finishedAt: now,
        status: "skipped",
        error: "The previous execution was still running.",
      });
    } else {
      const execution = this.execute(stored).finally(() => this.inFlight.delete(execution));
      this.inFlight.add(execution);
    }
    this.arm(stored, slot);
  }

  private async execute(stored: StoredJob): Promise<void> {
    const { job } = stored;
    const execution: CronExecution = {
      id: this.createId("execution"),
      jobId: job.id,
      startedAt: this.clock.now(),
      status: "running",
    };
    this.record(stored, execution);
    stored.running = true;
    const timeoutMs = job.timeoutSeconds * 1000;
    const controller = new AbortController();
    const signal = AbortSignal.any([controller.signal, this.lifetime.signal]);
    let timer: unknown;
    const timedOut = new Promise<"timeout">((resolve) => {
      timer = this.clock.setTimeout(() => {
        controller.abort(new ToolError("timeout", `Timed out after ${job.timeoutSeconds} s.`));
        resolve("timeout");
      }, timeoutMs);
    });
    let outcome: Partial<CronExecution>;
    try {
      const result = await Promise.race([this.runOnce(job, signal, timeoutMs), timedOut]);
      outcome = result === "timeout" ? { status: "timed_out", error: `Timed out after ${job.timeoutSeconds} s.` } : result;
    } catch (error) {
      outcome = { status: "failed", error: error instanceof Error ? error.message : String(error) };
    } finally {
      this.clock.clearTimeout(timer);
      stored.running = false;
    }
    this.replace(stored, { ...execution, ...outcome, finishedAt: this.clock.now() });
  }

  private async runOnce(job: CronJob, signal: AbortSignal, timeoutMs: number): Promise<Partial<CronExecution>> {
    const { runShell, continueConversation } = this.options;
    if (job.executionType === "shell" && runShell !== undefined) {
      const result = await runShell({ job, command: job.command ?? "", timeoutMs, signal });
      return {
        status: result.exitCode === 0 ? "succeeded" : "failed",
        exitCode: result.exitCode,
        output: this.tail(result.output),
      };
    }
    if (job.executionType === "harness" && continueConversation !== undefined) {
      const summary = await continueConversation({ job, conversationId: job.conversationId, prompt: job.prompt ?? "", signal });
      return { status: "succeeded", output: summary === undefined ? undefined : this.tail(summary) };
    }
    return { status: "failed", error: `No runner for ${job.executionType} jobs.` };
  }

  private tail(output: string): string {
    const limit = this.options.maxOutputChars ?? 16_000;
    return output.length <= limit
      ? output
      : `[first ${countOf(output.length - limit, "character")} dropped]\n${output.slice(-limit)}`;
  }

  private record(stored: StoredJob, execution: CronExecution): void {
    stored.executions.push(execution);
    const limit = this.options.historyLimit ?? 50;
    if (stored.executions.length > limit) stored.executions.splice(0, stored.executions.length - limit);
  }

  private replace(stored: StoredJob, execution: CronExecution): void {
    const index = stored.executions.findIndex((candidate) => candidate.id === execution.id);
    if (index === -1) this.record(stored, execution);
    else stored.executions[index] = execution;
  }
}
