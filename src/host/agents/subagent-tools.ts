import { type AnyToolDefinition, defineTool, type ToolContext, ToolError, type ToolGroup } from "agent-tool-catalog";
import type { z } from "zod";
import { boundedWait } from "../shared/bounded-wait.js";
import { subagentChildRun } from "../shared/child-run-records.js";
import { conversationIdOf } from "../shared/conversation-id.js";
import { isoTime } from "../shared/iso-time.js";
import { lazySchemas } from "../shared/lazy-zod.js";
import { type AgentDepthOptions, checkAgentDepthOptions, checkMaxWaitSeconds, childDepthOf } from "./agent-depth.js";
import type { SubagentManager, SubagentSnapshot } from "./subagent-manager.js";

/**
 * Options of {@link subagentToolGroup}.
 *
 * @public
 */
export interface SubagentToolOptions extends AgentDepthOptions {
  /** Runs the subagents; without one the group is absent. */
  readonly manager?: SubagentManager;
  /**
   * Longest wait `run_agent` and `wait_subagent` accept, in seconds: above 0 and at most 2,147,483
   * (a timer's range).
   * @defaultValue 1800
   */
  readonly maxWaitSeconds?: number;
}

const schemas = lazySchemas((z) => {
  const taskFields = {
    task: z.string().min(1).max(100_000).describe("The subagent's task, with all the context it needs"),
    profile: z.string().min(1).optional().describe("Agent profile to run under (see list_profiles)"),
    model: z.string().min(1).optional().describe("Model to use"),
    max_steps: z.number().int().min(1).max(500).optional().describe("Most model turns it may take"),
  };
  const runInput = z.object({
    ...taskFields,
    timeout_seconds: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe("Stop waiting after this many seconds (default 300); it keeps running"),
  });
  const startInput = z.object(taskFields);
  const idInput = z.object({ id: z.string().min(1).describe("The subagent's id, from start_subagent or run_agent") });
  const waitInput = idInput.extend({
    timeout_seconds: z.number().int().min(1).optional().describe("Stop waiting after this many seconds (default 30)"),
  });
  return { taskFields, runInput, startInput, idInput, waitInput };
});
type Schemas = ReturnType<typeof schemas>;

/** A snapshot as the model reads it; the run records the subagent's latest status among its child runs. */
function view(snapshot: SubagentSnapshot, context: ToolContext): Record<string, unknown> {
  context.recordChildRun(subagentChildRun(snapshot));
  return {
    id: snapshot.id,
    status: snapshot.status,
    task: snapshot.task,
    profile: snapshot.profile,
    model: snapshot.model,
    started_at: isoTime(snapshot.startedAt),
    finished_at: isoTime(snapshot.finishedAt),
    output: snapshot.output,
    error: snapshot.error,
    ...(snapshot.status === "running" ? { hint: "Still running: call wait_subagent or get_subagent with this id later." } : {}),
  };
}

async function owned(manager: SubagentManager, id: string, context: ToolContext): Promise<SubagentSnapshot> {
  const snapshot = await manager.get(id);
  // Another conversation's subagent is reported as unknown: ids are not capabilities to share.
  if (snapshot === undefined || snapshot.ownerId !== conversationIdOf(context)) {
    throw new ToolError("unknown_subagent", `There is no subagent ${JSON.stringify(id)} in this conversation.`, {
      hint: "Use the id returned by start_subagent or run_agent.",
    });
  }
  return snapshot;
}

function waitMs(seconds: number | undefined, fallback: number, options: SubagentToolOptions): number {
  return Math.min(seconds ?? fallback, options.maxWaitSeconds ?? 1800) * 1000;
}

async function startFor(
  manager: SubagentManager,
  input: z.output<Schemas["startInput"]>,
  context: ToolContext,
  options: SubagentToolOptions,
): Promise<SubagentSnapshot> {
  const started = await manager.start({
    task: input.task,
    ownerId: conversationIdOf(context),
    depth: childDepthOf(context, options),
    scope: context.scope,
    profile: input.profile,
    model: input.model,
    maxSteps: input.max_steps,
  });
  // Recorded (and saved) before any wait: a process that takes the run over still knows the child.
  context.recordChildRun(subagentChildRun(started));
  return started;
}

const TAGS = ["builtin", "agent", "subagent", "background"];

function runAgentTool(manager: SubagentManager, options: SubagentToolOptions): AnyToolDefinition {
  return defineTool({
    name: "run_agent",
    description: "Run a subagent on a task under a named profile and wait for its answer (bounded by timeout_seconds).",
    inputSchema: schemas().runInput,
    tier: "deferred",
    // A child agent can act with the parent's tools: ask for it as for any destructive call.
    mutating: true,
    annotations: { title: "Run subagent" },
    tags: [...TAGS, "run", "profile", "delegate"],
    handler: async (input, context) => {
      const started = await startFor(manager, input, context, options);
      const timeoutMs = waitMs(input.timeout_seconds, 300, options);
      return view(
        (await boundedWait(manager.wait(started.id, { timeoutMs, signal: context.signal }), timeoutMs)) ?? started,
        context,
      );
    },
  });
}

function startSubagentTool(manager: SubagentManager, options: SubagentToolOptions): AnyToolDefinition {
  return defineTool({
    name: "start_subagent",
    description: "Start a subagent in the background and return its id at once; poll with get_subagent or wait_subagent.",
    inputSchema: schemas().startInput,
    tier: "deferred",
    // A child agent can act with the parent's tools: ask for it as for any destructive call.
    mutating: true,
    annotations: { title: "Start subagent" },
    tags: [...TAGS, "start", "spawn", "parallel"],
    handler: async (input, context) => view(await startFor(manager, input, context, options), context),
  });
}

function getSubagentTool(manager: SubagentManager): AnyToolDefinition {
  return defineTool({
    name: "get_subagent",
    description: "Get a subagent's status and, once it has ended, its output or error.",
    inputSchema: schemas().idInput,
    tier: "deferred",
    annotations: { title: "Get subagent", readOnlyHint: true },
    tags: [...TAGS, "status", "poll"],
    handler: async (input, context) => view(await owned(manager, input.id, context), context),
  });
}

function waitSubagentTool(manager: SubagentManager, options: SubagentToolOptions): AnyToolDefinition {
  return defineTool({
    name: "wait_subagent",
    description: "Wait until a subagent ends, at most timeout_seconds; returns its state either way.",
    inputSchema: schemas().waitInput,
    tier: "deferred",
    annotations: { title: "Wait for subagent", readOnlyHint: true },
    tags: [...TAGS, "wait", "join"],
    handler: async (input, context) => {
      const snapshot = await owned(manager, input.id, context);
      const timeoutMs = waitMs(input.timeout_seconds, 30, options);
      return view(
        (await boundedWait(manager.wait(snapshot.id, { timeoutMs, signal: context.signal }), timeoutMs)) ?? snapshot,
        context,
      );
    },
  });
}

function cancelSubagentTool(manager: SubagentManager): AnyToolDefinition {
  return defineTool({
    name: "cancel_subagent",
    description: "Cancel a running subagent.",
    inputSchema: schemas().idInput,
    tier: "deferred",
    annotations: { title: "Cancel subagent" },
    tags: [...TAGS, "cancel", "stop", "abort"],
    handler: async (input, context) => {
      const snapshot = await owned(manager, input.id, context);
      return view((await manager.cancel(snapshot.id)) ?? snapshot, context);
    },
  });
}

function createTools(manager: SubagentManager, options: SubagentToolOptions): AnyToolDefinition[] {
  return [
    runAgentTool(manager, options),
    startSubagentTool(manager, options),
    getSubagentTool(manager),
    waitSubagentTool(manager, options),
    cancelSubagentTool(manager),
  ];
}

/**
 * The subagent tools (`run_agent`, `start_subagent`, `get_subagent`, `wait_subagent`,
 * `cancel_subagent`), present when a `manager` is given. Each conversation sees only its own
 * subagents; waits are bounded and never cancel the subagent.
 * @public
 */
export function subagentToolGroup(options: SubagentToolOptions): ToolGroup {
  checkAgentDepthOptions(options, "subagentToolGroup");
  checkMaxWaitSeconds(options.maxWaitSeconds, "subagentToolGroup");
  const { manager } = options;
  return {
    name: "subagents",
    enabled: manager !== undefined,
    tools: () => (manager === undefined ? [] : createTools(manager, options)),
  };
}
