import { type AnyToolDefinition, defineTool, type ToolContext, ToolError, type ToolGroup } from "agent-tool-catalog";
import { type AgentDepthOptions, checkAgentDepthOptions, checkMaxWaitSeconds, childDepthOf } from "../agents/agent-depth.js";
import { boundedWait } from "../shared/bounded-wait.js";
import { workflowChildRun } from "../shared/child-run-records.js";
import { conversationIdOf } from "../shared/conversation-id.js";
import { checkEntityName } from "../shared/entity-name.js";
import { isoTime } from "../shared/iso-time.js";
import { lazySchemas } from "../shared/lazy-zod.js";
import type { WorkflowRunSnapshot, WorkflowService } from "./workflow-service.js";

/**
 * Options of {@link workflowToolGroup}.
 *
 * @public
 */
export interface WorkflowToolOptions extends AgentDepthOptions {
  /** Runs workflows; without one the group is absent. `InProcessWorkflowService` is the default implementation. */
  readonly service?: WorkflowService;
  /**
   * Longest wait `run_workflow` accepts, in seconds: above 0 and at most 2,147,483 (a timer's range).
   * @defaultValue 1800
   */
  readonly maxWaitSeconds?: number;
}

const schemas = lazySchemas((z) => {
  const createInput = z.object({
    name: z.string().min(1).max(64).describe("The workflow's name: lower-case letters, digits, - and _"),
    description: z.string().trim().min(1).max(2000).describe("What it does"),
    source: z
      .string()
      .min(1)
      .max(200_000)
      .describe("TypeScript source of a WorkflowDefinition using ctx.agent, ctx.parallel, ctx.pipeline"),
    scope: z.enum(["project", "user"]).optional().describe("Where it would be installed (default project)"),
  });
  const runInput = z.object({
    name: z.string().min(1).max(64).optional().describe("The workflow to run (not needed with resume_run_id)"),
    args: z.record(z.string(), z.unknown()).optional().describe("The workflow's arguments"),
    wait: z.boolean().optional().describe("Wait for the result, up to timeout_seconds (default true)"),
    timeout_seconds: z.number().int().min(1).optional().describe("Most seconds to wait (default 60); the run goes on after"),
    resume_run_id: z
      .string()
      .min(1)
      .optional()
      .describe("A run to pick up: wait for it if running, resume it if failed or cancelled"),
  });
  return { createInput, runInput };
});

/** A snapshot as the model reads it; the run records the workflow run's latest status among its child runs. */
function view(snapshot: WorkflowRunSnapshot, context: ToolContext): Record<string, unknown> {
  context.recordChildRun(workflowChildRun(snapshot));
  return {
    run_id: snapshot.runId,
    workflow: snapshot.workflow,
    status: snapshot.status,
    result: snapshot.result,
    error: snapshot.error,
    agent_calls: snapshot.agentCalls,
    tokens: snapshot.tokens,
    started_at: isoTime(snapshot.startedAt),
    finished_at: isoTime(snapshot.finishedAt),
    ...(snapshot.status === "running"
      ? { hint: `Still running: call run_workflow with {"resume_run_id":"${snapshot.runId}"} to wait again.` }
      : {}),
    ...(snapshot.status === "failed" || snapshot.status === "cancelled"
      ? { hint: `Resume it with {"resume_run_id":"${snapshot.runId}"}: finished agent calls are replayed, not repeated.` }
      : {}),
  };
}

async function pickUp(service: WorkflowService, runId: string, context: ToolContext): Promise<WorkflowRunSnapshot> {
  const snapshot = await service.get(runId);
  if (snapshot === undefined || snapshot.ownerId !== conversationIdOf(context)) {
    throw new ToolError("unknown_workflow_run", `There is no workflow run ${JSON.stringify(runId)} in this conversation.`);
  }
  // The conversation id is not a capability: a narrower run sharing it never resumes a wider run's scope.
  return snapshot.status === "failed" || snapshot.status === "cancelled"
    ? service.resume(runId, { scope: context.scope })
    : snapshot;
}

function createRunTool(service: WorkflowService, options: WorkflowToolOptions): AnyToolDefinition {
  return defineTool({
    name: "run_workflow",
    description:
      "Run a named workflow (host-registered TypeScript composing sub-agents), or pick up a run with resume_run_id. Waits up to timeout_seconds unless wait is false.",
    inputSchema: schemas().runInput,
    tier: "deferred",
    // A child agent can act with the parent's tools: ask for it as for any destructive call.
    mutating: true,
    annotations: { title: "Run workflow", openWorldHint: true },
    tags: ["builtin", "workflow", "run", "pipeline", "orchestrate", "resume", "agents"],
    handler: async (input, context) => {
      let snapshot: WorkflowRunSnapshot;
      if (input.resume_run_id !== undefined) {
        snapshot = await pickUp(service, input.resume_run_id, context);
      } else {
        if (input.name === undefined)
          throw new ToolError("invalid_input", "name is required unless resume_run_id is given.", { data: { field: "name" } });
        snapshot = await service.start(input.name, input.args ?? {}, {
          ownerId: conversationIdOf(context),
          depth: childDepthOf(context, options),
          scope: context.scope,
        });
      }
      // Recorded (and saved) before any wait: a process that takes the run over still knows the child.
      context.recordChildRun(workflowChildRun(snapshot));
      if (input.wait === false || snapshot.status !== "running") return view(snapshot, context);
      const timeoutMs = Math.min(input.timeout_seconds ?? 60, options.maxWaitSeconds ?? 1800) * 1000;
      return view(
        (await boundedWait(service.wait(snapshot.runId, { timeoutMs, signal: context.signal }), timeoutMs)) ?? snapshot,
        context,
      );
    },
  });
}

function createAuthoringTool(service: WorkflowService): AnyToolDefinition {
  return defineTool({
    name: "create_workflow",
    description:
      "Propose a new workflow: its TypeScript source is stored for a person to review and install. It is never run as written; it becomes runnable only once the host registers it.",
    inputSchema: schemas().createInput,
    tier: "deferred",
    mutating: true,
    annotations: { title: "Create workflow" },
    tags: ["builtin", "workflow", "create", "author", "propose", "typescript"],
    handler: async (input, context) => {
      const submission = await service.submitSource({
        name: checkEntityName("Workflow", input.name),
        description: input.description,
        source: input.source,
        scope: input.scope ?? "project",
        submittedBy: conversationIdOf(context),
      });
      return {
        submission_id: submission.id,
        status: submission.status,
        note: "Stored for review. It is not runnable until the host reviews and registers it; do not call run_workflow with it yet.",
      };
    },
  });
}

/**
 * The workflow tools (`create_workflow`, `run_workflow`), present when a `service` is given.
 *
 * @public
 */
export function workflowToolGroup(options: WorkflowToolOptions): ToolGroup {
  checkAgentDepthOptions(options, "workflowToolGroup");
  checkMaxWaitSeconds(options.maxWaitSeconds, "workflowToolGroup");
  const { service } = options;
  return {
    name: "workflows",
    enabled: service !== undefined,
    tools: () => (service === undefined ? [] : [createAuthoringTool(service), createRunTool(service, options)]),
  };
}
