import { type ChildRunState, ConfigurationError, type Run } from "agent-tool-catalog";
import type { SubagentManager, SubagentSnapshot } from "../agents/subagent-manager.js";
import type { WorkflowRunSnapshot, WorkflowService } from "../workflows/workflow-service.js";

/**
 * A subagent as its parent run records it among its child runs.
 * @public
 */
export function subagentChildRun(snapshot: SubagentSnapshot): ChildRunState {
  return {
    kind: "subagent",
    id: snapshot.id,
    status: snapshot.status,
    label: snapshot.task,
    startedAt: snapshot.startedAt,
    finishedAt: snapshot.finishedAt,
  };
}

/**
 * A workflow run as its parent run records it among its child runs.
 * @public
 */
export function workflowChildRun(snapshot: WorkflowRunSnapshot): ChildRunState {
  return {
    kind: "workflow",
    id: snapshot.runId,
    status: snapshot.status,
    label: snapshot.workflow,
    startedAt: snapshot.startedAt,
    finishedAt: snapshot.finishedAt,
  };
}

/**
 * Where {@link refreshChildRuns} looks children up.
 * @public
 */
export interface ChildRunSources {
  /** Finds `"subagent"` children (a `RedisSubagentManager` sees those of every process). */
  readonly subagents?: SubagentManager;
  /** Finds `"workflow"` children (a `RedisWorkflowService` sees those of every process). */
  readonly workflows?: WorkflowService;
}

/**
 * A running child {@link refreshChildRuns} could not read: its record in the manager or service
 * is not one this library wrote (`invalid_stored_record`: cut, edited, another program's value),
 * or holds fields a child run cannot have (`invalid_child_run`). The child keeps its last known
 * state in the run.
 * @public
 */
export interface UnreadableChildRun {
  /** The child as the run last recorded it (unchanged). */
  readonly child: ChildRunState;
  /** `invalid_stored_record` or `invalid_child_run`. */
  readonly code: string;
  /** What was wrong, naming the Redis key for a stored record. */
  readonly message: string;
}

/**
 * Options of {@link refreshChildRuns}.
 * @public
 */
export interface RefreshChildRunsOptions {
  /** Told of each running child that could not be read (it keeps its last known state). */
  readonly onUnreadable?: (unreadable: UnreadableChildRun) => void;
}

/**
 * Asks the manager and the service for the current state of the run's children it last saw
 * running, records what changed (saved with the run) and returns the children. Use it after
 * continuing a run in another process: a child whose process died is then reported failed
 * rather than running. Children the sources no longer know (expired) keep their last status.
 *
 * A child whose record cannot be read (see {@link UnreadableChildRun}) keeps its last known
 * state, is reported to `options.onUnreadable`, and the children after it are refreshed all the
 * same: one bad record no longer hides the others' state.
 * @throws RedisTimeoutError (and any other failure of the sources) as before: the refresh stops,
 * since nothing is known about the children not yet asked.
 * @public
 */
export async function refreshChildRuns(
  run: Pick<Run, "childRuns" | "recordChildRun">,
  sources: ChildRunSources,
  options: RefreshChildRunsOptions = {},
): Promise<readonly ChildRunState[]> {
  for (const child of run.childRuns()) {
    if (child.status !== "running") continue;
    try {
      if (child.kind === "subagent" && sources.subagents !== undefined) {
        const snapshot = await sources.subagents.get(child.id);
        if (snapshot !== undefined) run.recordChildRun(subagentChildRun(snapshot));
      } else if (child.kind === "workflow" && sources.workflows !== undefined) {
        const snapshot = await sources.workflows.get(child.id);
        if (snapshot !== undefined) run.recordChildRun(workflowChildRun(snapshot));
      }
    } catch (error) {
      if (!isUnreadable(error)) throw error;
      options.onUnreadable?.({ child, code: error.code, message: error.message });
    }
  }
  return run.childRuns();
}

/** A record that is not a child's (skipped with a report), as against Redis not answering (thrown). */
function isUnreadable(error: unknown): error is ConfigurationError {
  return error instanceof ConfigurationError && (error.code === "invalid_stored_record" || error.code === "invalid_child_run");
}
