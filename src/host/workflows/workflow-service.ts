import type { RunScope } from "agent-tool-catalog";

/**
 * Where a workflow run is in its life.
 *
 * @public
 */
export type WorkflowRunStatus = "running" | "completed" | "failed" | "cancelled";

/**
 * A workflow run at one moment.
 *
 * @public
 */
export interface WorkflowRunSnapshot {
  /** The run's id (what `resume_run_id` takes). */
  readonly runId: string;
  /** The workflow. */
  readonly workflow: string;
  /** The conversation that started it. */
  readonly ownerId: string;
  /** Its status. */
  readonly status: WorkflowRunStatus;
  /** Its result, once completed. */
  readonly result?: unknown;
  /** Why it failed or was cancelled. */
  readonly error?: { readonly code: string; readonly message: string } | undefined;
  /** Agent calls made so far. */
  readonly agentCalls: number;
  /** Tokens used so far. */
  readonly tokens: number;
  /** When it (last) started. */
  readonly startedAt: number;
  /** When it ended. */
  readonly finishedAt?: number | undefined;
}

/**
 * Workflow source the model wrote, held for a person to review.
 *
 * @public
 */
export interface WorkflowSubmission {
  /** Its id. */
  readonly id: string;
  /** The proposed workflow's name. */
  readonly name: string;
  /** What it should do. */
  readonly description: string;
  /** The TypeScript source, as text. It is never evaluated by this library. */
  readonly source: string;
  /** Where it would be installed. */
  readonly scope: "project" | "user";
  /** The conversation that submitted it. */
  readonly submittedBy: string;
  /** When. */
  readonly submittedAt: number;
  /** Always `pending_review` here; the host's review flow decides the rest. */
  readonly status: "pending_review";
}

/**
 * A listed workflow.
 *
 * @public
 */
export interface WorkflowSummary {
  /** Its name. */
  readonly name: string;
  /** What it does. */
  readonly description: string;
}

/**
 * Options of {@link WorkflowService.start}.
 *
 * @public
 */
export interface WorkflowStartOptions {
  /** The conversation that starts it. */
  readonly ownerId: string;
  /** The fork depth of the agents it starts. */
  readonly depth: number;
  /** What the starting run may do: the workflow's agents run as its children, never wider. */
  readonly scope: RunScope;
}

/**
 * Options of {@link WorkflowService.resume}.
 *
 * @public
 */
export interface WorkflowResumeOptions {
  /**
   * What the resuming run may do. The run goes on with the scope saved when it started, so it
   * resumes only when that scope lies within this one (sandbox and approval as strict or
   * stricter, workspace the same or inside, no tool this one lacks, no shallower depth);
   * otherwise `resume` rejects with `ToolError` `resume_refused` (`data.reason` says which part
   * is wider) and the run stays as it was. `run_workflow` always passes the caller's scope;
   * host code that omits it resumes with the saved scope unchecked.
   */
  readonly scope?: RunScope;
}

/**
 * Runs registered workflows (the spec's `WorkflowService`). Methods reject with `ToolError` for
 * the model's mistakes (unknown workflow, invalid args, a run that cannot be resumed).
 * @public
 */
export interface WorkflowService {
  /** The workflows that can be run. */
  list(): Promise<readonly WorkflowSummary[]>;
  /** Starts a run and returns at once. */
  start(name: string, args: Readonly<Record<string, unknown>>, options: WorkflowStartOptions): Promise<WorkflowRunSnapshot>;
  /** A run, or `undefined`. */
  get(runId: string): Promise<WorkflowRunSnapshot | undefined>;
  /** Resolves when the run ends or the wait times out (then still `running`). */
  wait(
    runId: string,
    options: { readonly timeoutMs: number; readonly signal?: AbortSignal },
  ): Promise<WorkflowRunSnapshot | undefined>;
  /**
   * Resumes a failed or cancelled run: finished agent calls are replayed from its journal. It
   * never runs wider than `options.scope` (see {@link WorkflowResumeOptions}).
   */
  resume(runId: string, options?: WorkflowResumeOptions): Promise<WorkflowRunSnapshot>;
  /** Stores model-written source for review; never evaluates it. */
  submitSource(submission: Omit<WorkflowSubmission, "id" | "submittedAt" | "status">): Promise<WorkflowSubmission>;
}
