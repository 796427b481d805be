import { ToolError } from "agent-tool-catalog";
import type {
  InProcessWorkflowService,
  WorkflowRunSnapshot,
  WorkflowService,
  WorkflowStartOptions,
  WorkflowSubmission,
  WorkflowSummary,
} from "agent-tool-catalog/host";
import type { Redis } from "ioredis";
import { DurableJobs } from "./durable-jobs.js";

/**
 * Options of {@link RedisWorkflowService}.
 *
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
}

/**
 * A `WorkflowService` whose runs are visible to every process: the process that starts a run
 * executes it (through `local`) and mirrors its snapshot (status, agent calls, tokens, result)
 * into Redis; any process can `get` it, `wait` for it (`run_workflow` with `resume_run_id` from
 * another replica) or `cancel` it. A run whose process dies is reported `failed`
 * (`workflow_interrupted`) once its lease runs out; a process that only stalled past its lease
 * cancels its copy, so a run never executes in two places and never ends twice. Resuming needs the
 * run's journal, which lives in the process that ran it: only that process resumes it.
 *
 * @beta
 */
export class RedisWorkflowService implements WorkflowService {
  private readonly local: InProcessWorkflowService;
  private readonly jobs: DurableJobs<WorkflowRunSnapshot>;

  constructor(options: RedisWorkflowServiceOptions) {
    this.local = options.local;
    this.jobs = new DurableJobs<WorkflowRunSnapshot>({
      redis: options.redis,
      prefix: options.prefix ?? "atc",
      kind: "workflow",
      leaseMs: options.leaseMs ?? 15_000,
      retainMs: options.retainMs ?? 86_400_000,
      pollIntervalMs: options.pollIntervalMs ?? 500,
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
    });
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
   * {@inheritDoc WorkflowService.resume}
   * @throws ToolError `resume_refused` when the run ran in another process (its journal is there),
   * `unknown_workflow_run` when there is no such run.
   */
  async resume(runId: string): Promise<WorkflowRunSnapshot> {
    const current = await this.jobs.get(runId);
    if (current === undefined) throw new ToolError("unknown_workflow_run", `There is no workflow run ${JSON.stringify(runId)}.`);
    if (current.status === "running" || current.status === "completed") return current;
    if ((await this.local.get(runId)) === undefined) {
      throw new ToolError(
        "resume_refused",
        `Workflow run ${runId} ran in another process, which holds its journal; it cannot be resumed here.`,
        { hint: "Start a new run with the same args." },
      );
    }
    const resumed = await this.local.resume(runId);
    if (resumed.status !== "running") return resumed;
    if (!(await this.jobs.claim(resumed))) {
      // Another process resumed it first (it owns the run now): do not run it twice.
      await this.local.cancel(runId);
      return (await this.jobs.get(runId)) ?? resumed;
    }
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

  /** Stops this process's heartbeat and subscription (its running runs then fail their lease elsewhere). */
  close(): void {
    this.jobs.close();
  }
}
