import {
  type AnyToolDefinition,
  BUILTIN_TAG,
  CORE_SET_TAG,
  defineTool,
  type ToolContext,
  ToolError,
  type ToolGroup,
} from "agent-tool-catalog";
import type { z } from "zod";
import { checkNumberOption } from "../../errors/check-number-option.js";
import { lazySchemas } from "../shared/lazy-zod.js";
import { type AgentDepthOptions, checkAgentDepthOptions, checkMaxWaitSeconds, childDepthOf } from "./agent-depth.js";
import type { AgentRunner, AgentUsage } from "./agent-runner.js";

/**
 * Options of {@link swarmToolGroup}.
 *
 * @public
 */
export interface SwarmToolOptions extends AgentDepthOptions {
  /** Runs each subagent; without one the group is absent. */
  readonly runner?: AgentRunner;
  /**
   * The host's `EnableAgent` switch.
   * @defaultValue true
   */
  readonly enableAgent?: boolean;
  /** Most sub-tasks one call may start: a whole number at least 1, or `Infinity`. @defaultValue 8 */
  readonly maxAgents?: number;
  /**
   * Most subagents running at once within one call: a whole number at least 1, or `Infinity`
   * (as many as the call has sub-tasks). `NaN` started none, reporting every task `not_started`.
   * @defaultValue 4
   */
  readonly maxConcurrency?: number;
  /**
   * Most tokens (prompt + completion, as the runner reports them) one call may spend; once
   * spent, the running subagents are cancelled and the rest are not started. A number at least 0,
   * or `Infinity` (no limit, as when left out).
   * @defaultValue no limit
   */
  readonly maxTokens?: number;
  /**
   * Longest `timeout_seconds` a call accepts: above 0 and at most 2,147,483 (a timer's range).
   * @defaultValue 1800
   */
  readonly maxWaitSeconds?: number;
}

/**
 * How one sub-task of a swarm ended.
 *
 * @public
 */
export type SwarmTaskStatus = "completed" | "failed" | "cancelled" | "not_started";

/**
 * One sub-task's outcome, as the model reads it.
 *
 * @public
 */
export interface SwarmTaskResult {
  /** Its position in `tasks`. */
  readonly index: number;
  /** How it ended. */
  readonly status: SwarmTaskStatus;
  /** Its answer, when completed. */
  readonly output?: string;
  /** Why it failed, was cancelled or did not start. */
  readonly error?: string;
  /** Its tokens, when the runner counts them. */
  readonly usage?: AgentUsage;
}

const schemas = lazySchemas((z) => {
  const swarmInput = z.object({
    tasks: z
      .array(
        z.object({
          task: z.string().min(1).max(100_000).describe("The sub-task, with all the context its agent needs"),
          profile: z.string().min(1).optional().describe("Agent profile to run it under"),
          model: z.string().min(1).optional().describe("Model for it"),
          max_steps: z.number().int().min(1).max(500).optional().describe("Most model turns it may take"),
        }),
      )
      .min(1)
      .describe("Independent sub-tasks, one subagent each, run in parallel"),
    concurrency: z.number().int().min(1).optional().describe("Most subagents at once (default and cap: the host's)"),
    timeout_seconds: z.number().int().min(1).optional().describe("Cancel what is still running after this many seconds"),
  });
  return { swarmInput };
});
type Schemas = ReturnType<typeof schemas>;

type SwarmInput = z.output<Schemas["swarmInput"]>;

/** Aborted when the call is, when the budget is spent, or when the timeout passes. */
function swarmSignal(context: ToolContext, timeoutMs: number | undefined): { controller: AbortController; dispose(): void } {
  const controller = new AbortController();
  const onAbort = () => controller.abort(context.signal.reason);
  if (context.signal.aborted) onAbort();
  else context.signal.addEventListener("abort", onAbort, { once: true });
  const timer =
    timeoutMs === undefined
      ? undefined
      : setTimeout(() => controller.abort(new ToolError("timeout", "The swarm's timeout passed.")), timeoutMs);
  return {
    controller,
    dispose: () => {
      context.signal.removeEventListener("abort", onAbort);
      if (timer !== undefined) clearTimeout(timer);
    },
  };
}

function reasonOf(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason.message : "Cancelled.";
}

/**
 * `work`, or a rejection as soon as `signal` aborts. A host's runner that ignores its signal kept
 * the swarm waiting past its timeout and its token budget, for ever if the member never ended;
 * its late answer (or failure) is dropped.
 */
function unlessAborted<Result>(work: Promise<Result>, signal: AbortSignal): Promise<Result> {
  work.catch(() => undefined);
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<Result>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/** Runs one member to its end, or to the swarm's cancellation; never rejects. */
async function runMember(
  runner: AgentRunner,
  task: SwarmInput["tasks"][number],
  index: number,
  run: { readonly context: ToolContext; readonly depth: number; readonly signal: AbortSignal },
): Promise<SwarmTaskResult> {
  try {
    const result = await unlessAborted(
      runner.runPrompt({
        prompt: task.task,
        depth: run.depth,
        profile: task.profile,
        model: task.model,
        maxSteps: task.max_steps,
        parentRunId: run.context.runId,
        scope: run.context.scope,
        signal: run.signal,
      }),
      run.signal,
    );
    return { index, status: "completed", output: result.output, ...(result.usage ? { usage: result.usage } : {}) };
  } catch (error) {
    return run.signal.aborted
      ? { index, status: "cancelled", error: reasonOf(run.signal) }
      : { index, status: "failed", error: error instanceof Error ? error.message : String(error) };
  }
}

function checkSwarmOptions(options: SwarmToolOptions, where: string): void {
  checkAgentDepthOptions(options, where);
  checkNumberOption(options.maxAgents, "maxAgents", { min: 1, integer: true, infinite: true }, where);
  checkNumberOption(options.maxConcurrency, "maxConcurrency", { min: 1, integer: true, infinite: true }, where);
  checkNumberOption(options.maxTokens, "maxTokens", { min: 0, infinite: true }, where);
  checkMaxWaitSeconds(options.maxWaitSeconds, where);
}

async function runSwarm(
  runner: AgentRunner,
  input: SwarmInput,
  context: ToolContext,
  options: SwarmToolOptions,
): Promise<Record<string, unknown>> {
  const maxAgents = options.maxAgents ?? 8;
  if (input.tasks.length > maxAgents) {
    throw new ToolError("swarm_too_large", `${input.tasks.length} sub-tasks asked; one swarm may start at most ${maxAgents}.`, {
      hint: "Merge related sub-tasks, or run the rest in a second swarm once this one is done.",
      data: { limit: maxAgents },
    });
  }
  // Checked once for all: every member is a child of this call's agent.
  const depth = childDepthOf(context, options);
  const cap = options.maxConcurrency ?? 4;
  const workers = Math.min(input.concurrency ?? cap, cap, input.tasks.length);
  const timeoutSeconds =
    input.timeout_seconds === undefined ? undefined : Math.min(input.timeout_seconds, options.maxWaitSeconds ?? 1800);
  const { controller, dispose } = swarmSignal(context, timeoutSeconds === undefined ? undefined : timeoutSeconds * 1000);
  const results: SwarmTaskResult[] = input.tasks.map((_, index) => ({ index, status: "not_started" }));
  let tokens = 0;
  let next = 0;
  const work = async () => {
    while (!controller.signal.aborted && next < input.tasks.length) {
      const index = next++;
      const task = input.tasks[index];
      if (task === undefined) continue;
      const result = await runMember(runner, task, index, { context, depth, signal: controller.signal });
      results[index] = result;
      tokens += (result.usage?.inputTokens ?? 0) + (result.usage?.outputTokens ?? 0);
      if (options.maxTokens !== undefined && tokens > options.maxTokens && !controller.signal.aborted) {
        controller.abort(new ToolError("budget_exceeded", `The swarm's token budget (${options.maxTokens}) is spent.`));
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: workers }, work));
  } finally {
    dispose();
  }
  for (const result of results) {
    if (result.status === "not_started") results[result.index] = { ...result, error: reasonOf(controller.signal) };
  }
  context.signal.throwIfAborted();
  const count = (status: SwarmTaskStatus) => results.filter((result) => result.status === status).length;
  return {
    completed: count("completed"),
    failed: count("failed"),
    cancelled: count("cancelled") + count("not_started"),
    tokens,
    results,
  };
}

/**
 * `swarm`: several subagents on independent sub-tasks at once, results gathered in task order.
 * Every member is a child of the calling run (`request.scope`: never wider permissions or more
 * tools), the call is bounded (sub-tasks, concurrency, tokens, time), and cancelling the call
 * cancels every member. It can act through its members, so it asks approval like a destructive
 * tool.
 * @public
 */
export function createSwarmTool(runner: AgentRunner, options: SwarmToolOptions = {}): AnyToolDefinition {
  checkSwarmOptions(options, "createSwarmTool");
  return defineTool({
    name: "swarm",
    description:
      "Run several subagents in parallel, one per independent sub-task, and gather their answers. Each gets only its task text; give it all the context it needs.",
    inputSchema: schemas().swarmInput,
    tier: "deferred",
    mutating: true,
    annotations: { title: "Swarm of subagents" },
    tags: [BUILTIN_TAG, CORE_SET_TAG, "agent", "subagent", "parallel", "swarm", "fan-out", "delegate"],
    handler: (input, context) => runSwarm(runner, input, context, options),
  });
}

/**
 * The `swarm` tool, present when a `runner` is given and `enableAgent` is not false.
 *
 * @public
 */
export function swarmToolGroup(options: SwarmToolOptions): ToolGroup {
  checkSwarmOptions(options, "swarmToolGroup");
  const { runner } = options;
  return {
    name: "swarm",
    enabled: (options.enableAgent ?? true) && runner !== undefined,
    tools: () => (runner === undefined ? [] : [createSwarmTool(runner, options)]),
  };
}
