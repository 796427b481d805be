import type { ChildRunState, Run } from "agent-tool-catalog";
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
 * Asks the manager and the service for the current state of the run's children it last saw
 * running, records what changed (saved with the run) and returns the children. Use it after
 * continuing a run in another process: a child whose process died is then reported failed
 * rather than running. Children the sources no longer know (expired) keep their last status.
 * @public
 */
export async function refreshChildRuns(
  run: Pick<Run, "childRuns" | "recordChildRun">,
  sources: ChildRunSources,
): Promise<readonly ChildRunState[]> {
  for (const child of run.childRuns()) {
    if (child.status !== "running") continue;
    if (child.kind === "subagent" && sources.subagents !== undefined) {
      const snapshot = await sources.subagents.get(child.id);
      if (snapshot !== undefined) run.recordChildRun(subagentChildRun(snapshot));
    } else if (child.kind === "workflow" && sources.workflows !== undefined) {
      const snapshot = await sources.workflows.get(child.id);
      if (snapshot !== undefined) run.recordChildRun(workflowChildRun(snapshot));
    }
  }
  return run.childRuns();
}
