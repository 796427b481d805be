import type { RunScope } from "agent-tool-catalog";

/**
 * Where a subagent is in its life.
 *
 * @public
 */
export type SubagentStatus = "running" | "completed" | "failed" | "cancelled";

/**
 * What starting a subagent needs.
 *
 * @public
 */
export interface SubagentRequest {
  /** The subagent's task. */
  readonly task: string;
  /** The conversation that owns it: only that conversation's tools may see, wait for or cancel it. */
  readonly ownerId: string;
  /** The subagent's fork depth. */
  readonly depth: number;
  /** What the starting run may do: the subagent's run is created with it as parent, never wider. */
  readonly scope: RunScope;
  /** The agent profile to run under. */
  readonly profile?: string | undefined;
  /** The model. */
  readonly model?: string | undefined;
  /** The most model turns it may take. */
  readonly maxSteps?: number | undefined;
}

/**
 * A subagent at one moment.
 *
 * @public
 */
export interface SubagentSnapshot {
  /** Its id, e.g. `sub_3f2a9c1b7d4e`. */
  readonly id: string;
  /** The conversation that owns it. */
  readonly ownerId: string;
  /** Its task. */
  readonly task: string;
  /** Its profile, when one was asked for. */
  readonly profile?: string | undefined;
  /** Its model, when one was asked for. */
  readonly model?: string | undefined;
  /** Its status. */
  readonly status: SubagentStatus;
  /** When it started (ms since the epoch). */
  readonly startedAt: number;
  /** When it ended, once it has. */
  readonly finishedAt?: number | undefined;
  /** Its answer, once completed. */
  readonly output?: string | undefined;
  /** Why it failed or was cancelled. */
  readonly error?: string | undefined;
}

/**
 * Options of {@link SubagentManager.wait}.
 *
 * @public
 */
export interface SubagentWaitOptions {
  /** Give up waiting (not the subagent) after this many ms. */
  readonly timeoutMs: number;
  /** Stops waiting (not the subagent) when aborted. */
  readonly signal?: AbortSignal;
}

/**
 * Background subagents: start, poll, wait (bounded) and cancel. Methods are async so a host can
 * keep subagents in another process; {@link InProcessSubagentManager} runs them on an
 * `AgentRunner` in this one.
 * @public
 */
export interface SubagentManager {
  /** Starts a subagent and returns at once. */
  start(request: SubagentRequest): Promise<SubagentSnapshot>;
  /** The subagent's current state, or `undefined` for an unknown id. */
  get(id: string): Promise<SubagentSnapshot | undefined>;
  /** Resolves when the subagent ends or the wait times out (then still `running`). */
  wait(id: string, options: SubagentWaitOptions): Promise<SubagentSnapshot | undefined>;
  /** Cancels a running subagent; an ended one is returned unchanged. */
  cancel(id: string): Promise<SubagentSnapshot | undefined>;
}
