import { type RunScope, ToolError } from "agent-tool-catalog";
import type {
  InProcessWorkflowService,
  WorkflowResumeOptions,
  WorkflowRunCheckpoint,
  WorkflowRunSnapshot,
  WorkflowService,
  WorkflowStartOptions,
  WorkflowSubmission,
  WorkflowSummary,
} from "agent-tool-catalog/host";
import type { Redis } from "ioredis";
import { resumeRefusal } from "../policy/scope-within.js";
import { DurableJobs } from "./durable-jobs.js";
import { parseStoredRecord } from "./stored-record.js";

/** @throws ToolError `resume_refused` when the run's saved scope is wider than the caller's. */
function refuseWiderScope(runId: string, saved: RunScope, caller: RunScope | undefined): void {
  const refusal = resumeRefusal(runId, saved, caller);
  if (refusal !== undefined) throw new ToolError("resume_refused", refusal.message, { hint: refusal.hint, data: refusal.data });
}

/**
 * Options of {@link RedisWorkflowService}.
 * @beta
 */
export interface RedisWorkflowServiceOptions {
  /** The connection (an ioredis client the host owns and closes). A duplicate is made for pub/sub. */
  readonly redis: Redis;
  /** Runs the workflow runs this process starts, with the workflows registered in it. */
  readonly local: InProcessWorkflowService;
  /** Prefix of every key and channel. @defaultValue `"atc"` */
  readonly prefix?: string;
  /**
   * A running workflow run whose process has not renewed its lease for this long is reported
   * `failed` with code `workflow_interrupted` by whoever reads it next.
   * @defaultValue 15000
   */
  readonly leaseMs?: number;
  /** How long an ended run stays readable, in ms. @defaultValue 86400000 (a day) */
  readonly retainMs?: number;
  /** How often a wait re-reads the record when no notification arrives, in ms. @defaultValue 500 */
  readonly pollIntervalMs?: number;
  /**
   * How long `get` and `cancel` wait for Redis before they reject with a `RedisTimeoutError`
   * (never "unknown" for a workflow run it could not read), in ms. `wait` is bounded by its own `timeoutMs`.
   * @defaultValue 10000
   */
  readonly operationTimeoutMs?: number;
}

/**
 * A `WorkflowService` whose runs are visible to every process: the process that starts a run
 * executes it (through `local`) and mirrors its snapshot (status, agent calls, tokens, result)
 * into Redis; any process can `get` it, `wait` for it (`run_workflow` with `resume_run_id` from
 * another replica) or `cancel` it. A run whose process dies is reported `failed`
 * (`workflow_interrupted`) once its lease runs out; a process that only stalled past its lease
 * cancels its copy, so a run never executes in two places and never ends twice. The run's
 * checkpoint (args, scope, journal of finished agent calls) is saved with it after each agent
 * call, so any process with the workflow registered can resume a failed or cancelled run
 * (`run_workflow` with `resume_run_id`): finished agent calls are replayed, not repeated, and of
 * two processes resuming at once exactly one runs it.
 * @beta
 */
export class RedisWorkflowService implements WorkflowService {
  private readonly local: InProcessWorkflowService;
  private readonly jobs: DurableJobs<WorkflowRunSnapshot>;

  constructor(options: RedisWorkflowServiceOptions) {
    this.local = options.local;
    this.jobs = new DurableJobs<WorkflowRunSnapshot>({
      redis: options.redis,
      prefix: options.prefix,
      kind: "workflow",
      leaseMs: options.leaseMs,
      retainMs: options.retainMs,
      pollIntervalMs: options.pollIntervalMs,
      operationTimeoutMs: options.operationTimeoutMs,
      local: {
        get: (id) => this.local.get(id),
        wait: (id, wait) => this.local.wait(id, wait),
        cancel: (id) => this.local.cancel(id),
      },
      idOf: (snapshot) => snapshot.runId,
      isRunning: (snapshot) => snapshot.status === "running",
      interrupted: (snapshot, now) => ({
        ...snapshot,
        status: "failed",
        finishedAt: now,
        error: {
          code: "workflow_interrupted",
          message: "The process running this workflow run stopped before the run ended.",
        },
      }),
      // Each snapshot written carries the checkpoint as it stands: a run that failed before its
      // claim landed (its end written right after the claim) kept none, and could not be resumed
      // in another process (seen at load ~12 in test/escape/child-runs-workflow-resume).
      attachment: (runId) => {
        const checkpoint = this.local.checkpoint(runId);
        return checkpoint === undefined ? undefined : JSON.stringify(checkpoint);
      },
    });
    this.local.onJournal((runId) => void this.saveCheckpoint(runId).catch(() => undefined));
  }

  /** {@inheritDoc WorkflowService.list} */
  list(): Promise<readonly WorkflowSummary[]> {
    return this.local.list();
  }

  /** {@inheritDoc WorkflowService.start} */
  async start(
    name: string,
    args: Readonly<Record<string, unknown>>,
    options: WorkflowStartOptions,
  ): Promise<WorkflowRunSnapshot> {
    const snapshot = await this.local.start(name, args, options);
    // A fresh id cannot be owned elsewhere; a refused claim would mean an id collision.
    if (!(await this.jobs.claim(snapshot))) {
      await this.local.cancel(snapshot.runId);
      throw new Error(`Workflow run id ${snapshot.runId} is in use by another process.`);
    }
    return snapshot;
  }

  /** {@inheritDoc WorkflowService.get} */
  get(runId: string): Promise<WorkflowRunSnapshot | undefined> {
    return this.jobs.get(runId);
  }

  /** {@inheritDoc WorkflowService.wait} */
  wait(
    runId: string,
    options: { readonly timeoutMs: number; readonly signal?: AbortSignal },
  ): Promise<WorkflowRunSnapshot | undefined> {
    return this.jobs.wait(runId, options);
  }

  /**
   * Resumes a failed or cancelled run (a running or completed one is returned as it is), in any
   * process with its workflow registered, from the checkpoint saved with the run: finished agent
   * calls are replayed, not repeated.
   * @throws ToolError `unknown_workflow_run` when there is no such run; `resume_refused` when it
   * has no checkpoint, its workflow is not registered here, its budget was spent, or it was started
   * with a scope wider than `options.scope` (see `WorkflowResumeOptions`).
   */
  async resume(runId: string, options: WorkflowResumeOptions = {}): Promise<WorkflowRunSnapshot> {
    const current = await this.jobs.get(runId);
    if (current === undefined) throw new ToolError("unknown_workflow_run", `There is no workflow run ${JSON.stringify(runId)}.`);
    if (current.status === "running" || current.status === "completed") return current;
    if (current.error?.code === "workflow_budget_exceeded") {
      throw new ToolError(
        "resume_refused",
        `Workflow run ${runId} ended because its budget was spent; resuming would only fail again.`,
        { hint: "Start a new run with narrower args." },
      );
    }
    let local = await this.local.get(runId);
    if (local === undefined) {
      const saved = await this.jobs.attached(runId);
      const checkpoint =
        saved === undefined ? undefined : parseStoredRecord<WorkflowRunCheckpoint>(saved, [], this.jobs.keyOf(runId, "attached"));
      const registered = (await this.local.list()).some((workflow) => workflow.name === current.workflow);
      if (checkpoint === undefined || !registered) {
        throw new ToolError(
          "resume_refused",
          checkpoint === undefined
            ? `Workflow run ${runId} has no saved checkpoint; it cannot be resumed here.`
            : `Workflow run ${runId} runs workflow "${current.workflow}", which is not registered in this process.`,
          { hint: "Start a new run with the same args." },
        );
      }
      // Checked before the run is adopted or claimed: a refused caller changes nothing anywhere.
      refuseWiderScope(runId, checkpoint.scope, options.scope);
      // The record's spend is from the last renewal; the checkpoint's from the last agent call.
      const { agentCalls, tokens } = checkpoint.snapshot;
      local = this.local.adopt({
        ...checkpoint,
        snapshot: { ...current, agentCalls: Math.max(agentCalls, current.agentCalls), tokens: Math.max(tokens, current.tokens) },
      });
    }
    const known = this.local.checkpoint(runId);
    if (known !== undefined) refuseWiderScope(runId, known.scope, options.scope);
    // Claimed before anything runs: of two processes resuming at once, one runs the run.
    const claim: WorkflowRunSnapshot = {
      ...local,
      status: "running",
      error: undefined,
      finishedAt: undefined,
      startedAt: Date.now(),
    };
    if (!(await this.jobs.claim(claim, { follow: false }))) return (await this.jobs.get(runId)) ?? current;
    let resumed: WorkflowRunSnapshot;
    try {
      resumed = await this.local.resume(runId, options);
    } catch (error) {
      await this.jobs.update(current);
      throw error;
    }
    if (resumed.status === "running") this.jobs.follow(runId);
    else await this.jobs.update(resumed);
    return resumed;
  }

  /** Cancels a running workflow run, here or (over pub/sub) in the process that runs it. */
  cancel(runId: string): Promise<WorkflowRunSnapshot | undefined> {
    return this.jobs.cancel(runId);
  }

  /** {@inheritDoc WorkflowService.submitSource} */
  submitSource(submission: Omit<WorkflowSubmission, "id" | "submittedAt" | "status">): Promise<WorkflowSubmission> {
    return this.local.submitSource(submission);
  }

  /**
   * Saves the checkpoint after an agent call. Not limited to runs followed here: an agent call
   * journaled between the claim and the follow would wait for the next write. Redis refuses it
   * while the record is not this process's running one; the claim carries the checkpoint.
   */
  private async saveCheckpoint(runId: string): Promise<void> {
    const checkpoint = this.local.checkpoint(runId);
    if (checkpoint !== undefined) await this.jobs.attach(runId, JSON.stringify(checkpoint));
  }

  /** Stops this process's heartbeat and subscription (its running runs then fail their lease elsewhere). */
  close(): void {
    this.jobs.close();
  }
}
