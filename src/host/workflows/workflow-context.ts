import { createHash } from "node:crypto";
import type { RunScope } from "agent-tool-catalog";
import type { AgentRunner, AgentUsage } from "../agents/agent-runner.js";
import type { WorkflowBudget } from "./workflow-budget.js";
import type {
  WorkflowAgentOptions,
  WorkflowBudgetUsage,
  WorkflowContext,
  WorkflowParallelOptions,
  WorkflowStage,
} from "./workflow-definition.js";

/**
 * A finished agent call, kept so a resumed run replays it.
 *
 * @public
 */
export interface JournaledAgentCall {
  /** The agent's answer. */
  readonly output: string;
  /** Its tokens. */
  readonly usage?: AgentUsage | undefined;
}

/** What one execution of a workflow run is given. */
export interface WorkflowExecution {
  /** The workflow run's id. */
  readonly runId: string;
  /** The workflow's name, for budget messages. */
  readonly workflow: string;
  /** Runs the agent calls. */
  readonly runner: AgentRunner;
  /** The run's budget (shared by its resumptions). */
  readonly budget: WorkflowBudget;
  /** The run's journal of finished agent calls (shared by its resumptions). */
  readonly journal: Map<string, JournaledAgentCall>;
  /** Aborted on cancellation. */
  readonly signal: AbortSignal;
  /** The fork depth of the agents it starts. */
  readonly depth: number;
  /** The conversation that started the run. */
  readonly ownerId: string;
  /** What the starting run may do: every agent of the workflow is a child of it, never wider. */
  readonly scope: RunScope;
  /** Called once the budget is exhausted, to abort the rest of the run. */
  readonly onBudgetExceeded: (error: Error) => void;
}

/**
 * The {@link WorkflowContext} of one execution. An agent call's journal key is a hash of its
 * prompt and options plus how many identical calls came before it in this execution, so a
 * replay matches calls by content, not by timing (parallel branches may finish in any order).
 */
export class WorkflowRunContext implements WorkflowContext {
  /** {@inheritDoc WorkflowContext.runId} */
  readonly runId: string;
  /** {@inheritDoc WorkflowContext.signal} */
  readonly signal: AbortSignal;
  private readonly execution: WorkflowExecution;
  private readonly occurrences = new Map<string, number>();

  constructor(execution: WorkflowExecution) {
    this.execution = execution;
    this.runId = execution.runId;
    this.signal = execution.signal;
  }

  /** {@inheritDoc WorkflowContext.usage} */
  get usage(): WorkflowBudgetUsage {
    return this.execution.budget.usage;
  }

  /** {@inheritDoc WorkflowContext.agent} */
  async agent(prompt: string, options: WorkflowAgentOptions = {}): Promise<string> {
    const { budget, journal, workflow } = this.execution;
    const key = this.keyOf(prompt, options);
    const replayed = journal.get(key);
    if (replayed !== undefined) return replayed.output;
    this.signal.throwIfAborted();
    this.guard(() => budget.reserveCall(workflow));
    const result = await this.execution.runner.runPrompt({
      prompt,
      depth: this.execution.depth,
      profile: options.profile,
      model: options.model,
      maxSteps: options.maxSteps,
      allowedTools: options.allowedTools,
      parentRunId: this.execution.ownerId,
      scope: this.execution.scope,
      signal: this.signal,
    });
    // Journal before checking tokens: the call is paid for, a resumption should not repeat it.
    journal.set(key, { output: result.output, usage: result.usage });
    this.guard(() => budget.record(workflow, result.usage));
    return result.output;
  }

  /** {@inheritDoc WorkflowContext.parallel} */
  async parallel<Result>(tasks: readonly (() => Promise<Result>)[], options: WorkflowParallelOptions = {}): Promise<Result[]> {
    const results = new Array<Result>(tasks.length);
    const workers = Math.max(1, Math.min(options.concurrency ?? tasks.length, tasks.length));
    let next = 0;
    let failed = false;
    const work = async () => {
      while (!failed && next < tasks.length) {
        const index = next++;
        const task = tasks[index];
        if (task === undefined) continue;
        try {
          results[index] = await task();
        } catch (error) {
          failed = true;
          throw error;
        }
      }
    };
    await Promise.all(Array.from({ length: tasks.length === 0 ? 0 : workers }, work));
    return results;
  }

  /** {@inheritDoc WorkflowContext.pipeline} */
  pipeline<A, B>(input: A, s1: WorkflowStage<A, B>): Promise<B>;
  pipeline<A, B, C>(input: A, s1: WorkflowStage<A, B>, s2: WorkflowStage<B, C>): Promise<C>;
  pipeline<A, B, C, D>(input: A, s1: WorkflowStage<A, B>, s2: WorkflowStage<B, C>, s3: WorkflowStage<C, D>): Promise<D>;
  pipeline<A, B, C, D, E>(
    input: A,
    s1: WorkflowStage<A, B>,
    s2: WorkflowStage<B, C>,
    s3: WorkflowStage<C, D>,
    s4: WorkflowStage<D, E>,
  ): Promise<E>;
  pipeline<Value>(input: Value, ...stages: WorkflowStage<Value, Value>[]): Promise<Value>;
  async pipeline(input: unknown, ...stages: WorkflowStage<never, unknown>[]): Promise<unknown> {
    let value = input;
    for (const stage of stages) {
      this.signal.throwIfAborted();
      value = await (stage as WorkflowStage<unknown, unknown>)(value);
    }
    return value;
  }

  private keyOf(prompt: string, options: WorkflowAgentOptions): string {
    const content = JSON.stringify([
      prompt,
      options.profile ?? null,
      options.model ?? null,
      options.maxSteps ?? null,
      options.allowedTools ?? null,
    ]);
    const hash = createHash("sha256").update(content).digest("hex").slice(0, 32);
    const occurrence = this.occurrences.get(hash) ?? 0;
    this.occurrences.set(hash, occurrence + 1);
    return `${hash}#${occurrence}`;
  }

  private guard(check: () => void): void {
    try {
      check();
    } catch (error) {
      this.execution.onBudgetExceeded(error instanceof Error ? error : new Error(String(error)));
      throw error;
    }
  }
}
