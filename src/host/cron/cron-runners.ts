import { ToolError } from "agent-tool-catalog";
import type { CronJob, CronJobSpec } from "./cron-client.js";

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

/**
 * Refuses a job this scheduler cannot run: a shell job without a {@link CronShellRunner}
 * (`shell_execution_unavailable`), a harness job without a {@link CronContinuation}
 * (`harness_execution_unavailable`), each with a hint naming the other kind. Both of the
 * library's schedulers check it when a job is created, and a `CronClient` of the host's own can too.
 *
 * @public
 */
export function checkCronJobRunnable(
  spec: Pick<CronJobSpec, "executionType">,
  runners: { readonly runShell?: CronShellRunner | undefined; readonly continueConversation?: CronContinuation | undefined },
): void {
  if (spec.executionType === "shell" && runners.runShell === undefined) {
    throw new ToolError("shell_execution_unavailable", "This host does not run scheduled shell commands.", {
      hint: 'Use execution_type "harness" with a prompt instead.',
    });
  }
  if (spec.executionType === "harness" && runners.continueConversation === undefined) {
    throw new ToolError("harness_execution_unavailable", "This host cannot start scheduled assistant turns.", {
      hint: 'Use execution_type "shell" with a command instead.',
    });
  }
}
