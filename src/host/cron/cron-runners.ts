import type { CronJob } from "./cron-client.js";

/**
 * One run of a shell job's command.
 *
 * @public
 */
export interface CronShellRequest {
  /** The job. */
  readonly job: CronJob;
  /** The command line. */
  readonly command: string;
  /** The job's timeout, in ms; the signal aborts when it passes. */
  readonly timeoutMs: number;
  /** Aborted at the timeout or when the scheduler closes: kill the command. */
  readonly signal: AbortSignal;
}

/**
 * What a shell job's command did.
 *
 * @public
 */
export interface CronShellResult {
  /** Its exit code: 0 is success. */
  readonly exitCode: number;
  /** Its output (stdout and stderr); the scheduler keeps the tail. */
  readonly output: string;
}

/**
 * Runs a shell job's command headless. The host supplies it (for instance on the bash tool's
 * sandbox), so scheduled commands get the host's sandbox and environment policy; the in-process
 * scheduler refuses shell jobs without one rather than spawn unsandboxed processes.
 * @public
 */
export type CronShellRunner = (request: CronShellRequest) => Promise<CronShellResult>;

/**
 * One run of a harness job.
 *
 * @public
 */
export interface CronContinuationRequest {
  /** The job. */
  readonly job: CronJob;
  /** The conversation that created the job. */
  readonly conversationId: string;
  /** The job's prompt, as the new user turn. */
  readonly prompt: string;
  /** Aborted at the timeout or when the scheduler closes. */
  readonly signal: AbortSignal;
}

/**
 * Starts an assistant continuation in the job's conversation (the host re-invokes its agent
 * there). It may resolve with a short summary for the job's history.
 * @public
 */
export type CronContinuation = (request: CronContinuationRequest) => Promise<string | undefined>;
