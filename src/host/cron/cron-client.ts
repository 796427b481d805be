/**
 * How a job runs: a headless shell command, or a new assistant turn in its conversation.
 *
 * @public
 */
export type CronExecutionType = "shell" | "harness";

/**
 * A job's state. Deleted jobs are kept (soft delete) with their history.
 *
 * @public
 */
export type CronJobStatus = "active" | "paused" | "deleted";

/**
 * What creating a job needs.
 *
 * @public
 */
export interface CronJobSpec {
  /** A name for people, unique among jobs that are not deleted. */
  readonly name: string;
  /** 5-field cron expression, in UTC. */
  readonly schedule: string;
  /** How it runs. */
  readonly executionType: CronExecutionType;
  /** The command, for `shell` jobs. */
  readonly command?: string | undefined;
  /** The prompt, for `harness` jobs. */
  readonly prompt?: string | undefined;
  /** How long one execution may take. */
  readonly timeoutSeconds: number;
  /** The conversation that created it: `harness` jobs continue it. */
  readonly conversationId: string;
}

/**
 * A job as stored.
 *
 * @public
 */
export interface CronJob extends CronJobSpec {
  /** Its id. */
  readonly id: string;
  /** Its state. */
  readonly status: CronJobStatus;
  /** When it was created (ms since the epoch). */
  readonly createdAt: number;
  /** When it was last changed. */
  readonly updatedAt: number;
  /** When it will next run, when active. */
  readonly nextRunAt?: number | undefined;
}

/**
 * What one execution did.
 *
 * @public
 */
export type CronExecutionStatus = "running" | "succeeded" | "failed" | "timed_out" | "skipped";

/**
 * One execution of a job.
 *
 * @public
 */
export interface CronExecution {
  /** Its id. */
  readonly id: string;
  /** The job. */
  readonly jobId: string;
  /** When it started. */
  readonly startedAt: number;
  /** When it ended. */
  readonly finishedAt?: number | undefined;
  /** What happened. */
  readonly status: CronExecutionStatus;
  /** The command's exit code, for shell jobs. */
  readonly exitCode?: number | undefined;
  /** The command's output (the tail, when long), or the continuation's summary. */
  readonly output?: string | undefined;
  /** Why it failed, timed out or was skipped. */
  readonly error?: string | undefined;
}

/**
 * A job and its most recent executions, newest first.
 *
 * @public
 */
export interface CronJobDetails {
  /** The job. */
  readonly job: CronJob;
  /** Its latest executions, newest first. */
  readonly executions: readonly CronExecution[];
}

/**
 * Where cron jobs live: the host's scheduler service, or the {@link InProcessCronScheduler}.
 * Methods reject with a `ToolError` for a mistake the model can fix (a bad schedule, an
 * unknown id, an execution type the scheduler cannot run).
 * @public
 */
export interface CronClient {
  /** Creates and schedules a job. */
  create(spec: CronJobSpec): Promise<CronJob>;
  /** Jobs, deleted ones only when asked for. */
  list(options?: { readonly includeDeleted?: boolean }): Promise<CronJob[]>;
  /** A job and its `executions` most recent executions (newest first), or `undefined`. */
  get(id: string, executions: number): Promise<CronJobDetails | undefined>;
  /** Soft-deletes a job: it stops running; it and its history stay readable. */
  delete(id: string): Promise<CronJob>;
  /** Pauses an active job. */
  pause(id: string): Promise<CronJob>;
  /** Resumes a paused job. */
  resume(id: string): Promise<CronJob>;
}
