/**
 * Where a child run is in its life, as its parent last saw it.
 * @public
 */
export type ChildRunStatus = "running" | "completed" | "failed" | "cancelled";

/**
 * A child run (a subagent, a workflow run, a forked run) as the run that started it recorded it:
 * enough to report it and to find it again by id in another process. `kind` says where to look:
 * `"subagent"` in the `SubagentManager`, `"workflow"` in the `WorkflowService`, `"run"` in the
 * `RunStore` (`openRun`); hosts may use their own kinds. Outputs are not kept (the state stays
 * small): ask the manager for them.
 * @public
 */
export interface ChildRunState {
  /** What it is: `"subagent"`, `"workflow"`, `"run"` or a host's own kind (1 to 64 characters). */
  readonly kind: string;
  /** Its id where `kind` keeps it (1 to 256 characters). */
  readonly id: string;
  /** Its status when last seen. */
  readonly status: ChildRunStatus;
  /** What it does (a task, a workflow's name), cut to 200 characters. */
  readonly label?: string | undefined;
  /** When it started, in ms since the epoch. */
  readonly startedAt: number;
  /** When it ended, once it has. */
  readonly finishedAt?: number | undefined;
}
