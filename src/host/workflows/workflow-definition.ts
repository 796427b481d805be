import type { StandardSchemaV1 } from "agent-tool-catalog";

/**
 * Limits on what one workflow run may spend.
 *
 * @public
 */
export interface WorkflowBudgetLimits {
  /** Agent calls at most, over the run and its resumptions: a whole number at least 0, or `Infinity`. @defaultValue 50 */
  readonly maxAgentCalls?: number;
  /** Tokens at most (prompt and completion, as the runner reports them): a number at least 0, or `Infinity`. @defaultValue no limit */
  readonly maxTokens?: number;
}

/**
 * What a run has spent so far.
 *
 * @public
 */
export interface WorkflowBudgetUsage {
  /** Agent calls made, failed attempts included (replayed ones on resume are not counted again). */
  readonly agentCalls: number;
  /** Tokens used. */
  readonly tokens: number;
}

/**
 * Options of one `ctx.agent()` call.
 *
 * @public
 */
export interface WorkflowAgentOptions {
  /** The agent profile. */
  readonly profile?: string;
  /** The model. */
  readonly model?: string;
  /** The most model turns. */
  readonly maxSteps?: number;
  /** Tools the agent may use. */
  readonly allowedTools?: readonly string[];
}

/**
 * One stage of `ctx.pipeline()`: takes the previous stage's output.
 *
 * @public
 */
export type WorkflowStage<In, Out> = (value: In) => Out | Promise<Out>;

/**
 * Options of `ctx.parallel()`.
 *
 * @public
 */
export interface WorkflowParallelOptions {
  /** Tasks running at once. @defaultValue all of them */
  readonly concurrency?: number;
}

/**
 * What a workflow's code can do: call agents, fan out, chain stages. Agent calls are journaled,
 * so a resumed run replays finished calls instead of repeating (and paying for) them; keep a
 * workflow deterministic given its args and the agents' answers.
 * @public
 */
export interface WorkflowContext {
  /** The workflow run's id. */
  readonly runId: string;
  /** Aborted when the run is cancelled or its budget is exhausted. */
  readonly signal: AbortSignal;
  /** What the run has spent so far. */
  readonly usage: WorkflowBudgetUsage;
  /**
   * Runs a prompt in a child agent and returns its answer.
   * @throws WorkflowBudgetExceededError when the call would exceed the budget
   */
  agent(prompt: string, options?: WorkflowAgentOptions): Promise<string>;
  /** Runs tasks concurrently (bounded by `concurrency`); rejects with the first failure. */
  parallel<Result>(tasks: readonly (() => Promise<Result>)[], options?: WorkflowParallelOptions): Promise<Result[]>;
  /** Feeds `input` through stages in order. */
  pipeline<A, B>(input: A, s1: WorkflowStage<A, B>): Promise<B>;
  /** Feeds `input` through stages in order. */
  pipeline<A, B, C>(input: A, s1: WorkflowStage<A, B>, s2: WorkflowStage<B, C>): Promise<C>;
  /** Feeds `input` through stages in order. */
  pipeline<A, B, C, D>(input: A, s1: WorkflowStage<A, B>, s2: WorkflowStage<B, C>, s3: WorkflowStage<C, D>): Promise<D>;
  /** Feeds `input` through stages in order. */
  pipeline<A, B, C, D, E>(
    input: A,
    s1: WorkflowStage<A, B>,
    s2: WorkflowStage<B, C>,
    s3: WorkflowStage<C, D>,
    s4: WorkflowStage<D, E>,
  ): Promise<E>;
  /** Feeds `input` through stages of one type, any number of them. */
  pipeline<Value>(input: Value, ...stages: WorkflowStage<Value, Value>[]): Promise<Value>;
}

/**
 * A workflow: TypeScript the host wrote and registered (never code the model wrote).
 *
 * @public
 */
export interface WorkflowDefinition<Args = Record<string, unknown>, Result = unknown> {
  /** Its name, as `run_workflow` takes it. */
  readonly name: string;
  /** What it does, for the model. */
  readonly description: string;
  /** Checks `args` before a run starts (any Standard Schema: zod, valibot, ...). */
  readonly argsSchema?: StandardSchemaV1<unknown, Args>;
  /** Its budget. @defaultValue the service's default budget */
  readonly budget?: WorkflowBudgetLimits;
  /** The workflow. Its result is returned to the model (as JSON when not a string). */
  run(context: WorkflowContext, args: Args): Promise<Result>;
}

/**
 * Identity function that types a {@link WorkflowDefinition} from its schema.
 *
 * @public
 */
export function defineWorkflow<Args = Record<string, unknown>, Result = unknown>(
  definition: WorkflowDefinition<Args, Result>,
): WorkflowDefinition<Args, Result> {
  return definition;
}
