import { type AnyToolDefinition, defineTool, ToolError, type ToolGroup } from "agent-tool-catalog";
import { lazySchemas } from "../shared/lazy-zod.js";
import { type AgentDepthOptions, agentDepthOf, checkAgentDepthOptions, childDepthOf } from "./agent-depth.js";
import type { AgentRunner } from "./agent-runner.js";

/**
 * What a child agent hands back with `task_complete`.
 *
 * @public
 */
export interface TaskCompletion {
  /** The child's run. */
  readonly runId: string;
  /** The child's fork depth (1 or more). */
  readonly depth: number;
  /** Whether the child says it succeeded. */
  readonly status: "success" | "failure";
  /** The result for the parent. */
  readonly result: string;
}

/**
 * Options of {@link agentToolGroup}.
 *
 * @public
 */
export interface AgentToolOptions extends AgentDepthOptions {
  /**
   * The host's `EnableAgent` switch.
   * @defaultValue true
   */
  readonly enableAgent?: boolean;
  /** Runs child agents; without one the group is absent. */
  readonly runner?: AgentRunner;
  /**
   * Receives a child's `task_complete`, so the host's runner can end the child's loop and return
   * the result to the parent (the call's `tool.result` event carries it as well).
   */
  readonly onTaskComplete?: (completion: TaskCompletion) => void | Promise<void>;
}

const schemas = lazySchemas((z) => {
  const agentInput = z.object({
    prompt: z.string().min(1).max(100_000).describe("The question or task for the sub-agent, with all the context it needs"),
    model: z.string().min(1).optional().describe("Model for the sub-agent (default: the host's choice)"),
  });
  const spawnInput = z.object({
    task: z.string().min(1).max(100_000).describe("The child's task; it reports back with task_complete"),
    profile: z.string().min(1).optional().describe("Agent profile for the child (see list_profiles)"),
    model: z.string().min(1).optional().describe("Model for the child"),
    max_steps: z.number().int().min(1).max(500).optional().describe("Most model turns the child may take"),
  });
  const completeInput = z.object({
    result: z.string().min(1).max(200_000).describe("What you found or did, for the parent agent"),
    status: z.enum(["success", "failure"]).optional().describe("Whether the task succeeded (default success)"),
  });
  return { agentInput, spawnInput, completeInput };
});

function createAgentTool(runner: AgentRunner, options: AgentToolOptions): AnyToolDefinition {
  return defineTool({
    name: "agent",
    description:
      "Ask an inline sub-agent: it works on the prompt in a fresh context and returns its answer. Use it to keep long explorations out of your own context.",
    inputSchema: schemas().agentInput,
    tier: "deferred",
    // A child agent can act with the parent's tools: ask for it as for any destructive call.
    mutating: true,
    annotations: { title: "Sub-agent" },
    tags: ["builtin", "agent", "subagent", "delegate", "ask", "inline"],
    handler: async (input, context) => {
      const depth = childDepthOf(context, options);
      const result = await runner.runPrompt({
        prompt: input.prompt,
        depth,
        model: input.model,
        parentRunId: context.runId,
        scope: context.scope,
        signal: context.signal,
      });
      return result.output;
    },
  });
}

function createSpawnAgentTool(runner: AgentRunner, options: AgentToolOptions): AnyToolDefinition {
  return defineTool({
    name: "spawn_agent",
    description:
      "Spawn a child agent for a task and wait for its task_complete result. Children may spawn their own children, up to the fork depth limit.",
    inputSchema: schemas().spawnInput,
    tier: "deferred",
    // A child agent can act with the parent's tools: ask for it as for any destructive call.
    mutating: true,
    annotations: { title: "Spawn child agent" },
    tags: ["builtin", "agent", "spawn", "child", "fork", "delegate", "recursive"],
    handler: async (input, context) => {
      const depth = childDepthOf(context, options);
      const result = await runner.runPrompt({
        prompt: input.task,
        depth,
        profile: input.profile,
        model: input.model,
        maxSteps: input.max_steps,
        parentRunId: context.runId,
        scope: context.scope,
        signal: context.signal,
      });
      return { depth, result: result.output, ...(result.steps === undefined ? {} : { steps: result.steps }) };
    },
  });
}

/**
 * `task_complete`: a child agent's way to hand its result back. It exists only in registries of
 * child agents, and refuses at depth 0 even there (a root run whose context says depth 0).
 * @public
 */
export function createTaskCompleteTool(options: AgentToolOptions = {}): AnyToolDefinition {
  checkAgentDepthOptions(options, "createTaskCompleteTool");
  return defineTool({
    name: "task_complete",
    description: "Finish your task as a child agent: hand the result to the parent agent, then stop.",
    inputSchema: schemas().completeInput,
    tier: "core",
    annotations: { title: "Task complete" },
    tags: ["builtin", "agent", "done", "finish", "result", "child"],
    handler: async (input, context) => {
      const depth = agentDepthOf(context, options);
      if (depth === 0) {
        throw new ToolError("not_a_child_agent", "task_complete is for child agents; you are the root agent.", {
          hint: "Answer the user directly.",
        });
      }
      await options.onTaskComplete?.({ runId: context.runId, depth, status: input.status ?? "success", result: input.result });
      return "Result delivered to the parent agent. Stop now: do not call more tools.";
    },
  });
}

/**
 * The agent orchestration tools (`agent`, `spawn_agent`, and `task_complete` for child agents),
 * present when `enableAgent` and a `runner` are given. `task_complete` is registered only when
 * `depth` \> 0: a registry built for a child agent.
 * @public
 */
export function agentToolGroup(options: AgentToolOptions): ToolGroup {
  checkAgentDepthOptions(options, "agentToolGroup");
  const { runner } = options;
  return {
    name: "agents",
    enabled: (options.enableAgent ?? true) && runner !== undefined,
    tools: () => {
      if (runner === undefined) return [];
      const tools: AnyToolDefinition[] = [createAgentTool(runner, options), createSpawnAgentTool(runner, options)];
      if ((options.depth ?? 0) > 0) tools.push(createTaskCompleteTool(options));
      return tools;
    },
  };
}
