import type { RunScope } from "agent-tool-catalog";

/**
 * Token counts of one agent run, for budgets and reports.
 *
 * @public
 */
export interface AgentUsage {
  /** Prompt tokens. */
  readonly inputTokens: number;
  /** Completion tokens. */
  readonly outputTokens: number;
}

/**
 * What the host's agent loop is asked to run.
 *
 * @public
 */
export interface AgentPromptRequest {
  /** The child's task, as its first user message. */
  readonly prompt: string;
  /** The child's fork depth: 1 for a child of the root agent. */
  readonly depth: number;
  /** The agent profile to run under (see the profile tools), when one was asked for. */
  readonly profile?: string | undefined;
  /** The model to use, when one was asked for. */
  readonly model?: string | undefined;
  /** The most model turns the child may take, when limited. */
  readonly maxSteps?: number | undefined;
  /**
   * Tools the child may use (a forked skill's `allowed-tools`); `undefined` means its profile's,
   * `[]` none but `AskUserQuestion`, `find_tool` and `skill` (note that `createRun` reads an
   * empty `allowedTools` as every tool: a runner must not pass `[]` through as it is).
   */
  readonly allowedTools?: readonly string[] | undefined;
  /** The run (conversation) that asked, for tracing and cost attribution. */
  readonly parentRunId: string;
  /**
   * What the asking run may do. Required: the runner must create the child run with
   * `createRun({ parent: request.scope })`, so the child never has wider permissions (sandbox,
   * workspace, approval) or more tools than the run that started it.
   */
  readonly scope: RunScope;
  /** Aborted when the caller gives up: stop the child's loop. */
  readonly signal: AbortSignal;
}

/**
 * What a child agent produced.
 *
 * @public
 */
export interface AgentPromptResult {
  /** The child's final answer (its `task_complete` result, or its last message). */
  readonly output: string;
  /** Tokens used, when the host counts them; workflow token budgets need it. */
  readonly usage?: AgentUsage | undefined;
  /** Model turns taken. */
  readonly steps?: number | undefined;
}

/**
 * The host's agent loop, seen from the tools: run a prompt to completion in a child agent. The
 * library has no model, so it ships no runner; everything built on one (subagents, forked
 * skills, agentic fetch, workflows) works with any implementation, including a scripted one in
 * tests. A runner creates the child run with `createRun({ parent: request.scope })` (never
 * wider than the parent), whose registry uses `agentToolGroup({ depth })` with the request's
 * depth, so the child has `task_complete` and its own depth limit.
 * @public
 */
export interface AgentRunner {
  /** Runs the child to its end; rejects (or honours `signal`) on failure or cancellation. */
  runPrompt(request: AgentPromptRequest): Promise<AgentPromptResult>;
}
