import {
  type AnyToolDefinition,
  defineTool,
  type ModelErrorCode,
  type ToolContext,
  ToolError,
  type ToolGroup,
} from "agent-tool-catalog";
import type { z } from "zod";
import { conversationIdOf } from "../shared/conversation-id.js";
import { isoTime } from "../shared/iso-time.js";
import { lazySchemas } from "../shared/lazy-zod.js";
import type { CronClient, CronExecution, CronJob, CronJobSpec } from "./cron-client.js";
import { parseCronSchedule } from "./cron-schedule.js";

/**
 * Options of {@link cronToolGroup}.
 *
 * @public
 */
export interface CronToolOptions {
  /**
   * The host's `EnableCron` switch.
   * @defaultValue true
   */
  readonly enableCron?: boolean;
  /** Where jobs live; without one the group is absent. */
  readonly client?: CronClient;
}

const DEFAULT_TIMEOUT_SECONDS = 30;
const RECENT_EXECUTIONS = 5;

const schemas = lazySchemas((z) => {
  const createInput = z.object({
    name: z.string().trim().min(1).max(100).describe("A short unique name for the job"),
    schedule: z
      .string()
      .min(1)
      .max(200)
      .describe('5-field cron expression in UTC: minute hour day-of-month month day-of-week, e.g. "0 9 * * MON-FRI"'),
    execution_type: z
      .enum(["shell", "harness"])
      .describe(
        '"shell": run command headless and record its output; "harness": start an assistant turn in this conversation with prompt',
      ),
    command: z
      .string()
      .max(100_000)
      .optional()
      .describe("The command line, for shell jobs (required there, refused for harness)"),
    prompt: z
      .string()
      .max(100_000)
      .optional()
      .describe("The prompt for the new turn, for harness jobs (required there, refused for shell)"),
    timeout_seconds: z.number().int().min(1).max(86_400).optional().describe("Most seconds one execution may take (default 30)"),
  });
  const idInput = z.object({ id: z.string().min(1).describe("The job's id, from cron_create or cron_list") });
  const listInput = z.object({ include_deleted: z.boolean().optional().describe("Also list deleted jobs (default false)") });
  return { createInput, idInput, listInput };
});
type Schemas = ReturnType<typeof schemas>;

function jobView(job: CronJob): Record<string, unknown> {
  return {
    id: job.id,
    name: job.name,
    schedule: `${job.schedule} (UTC)`,
    execution_type: job.executionType,
    ...(job.executionType === "shell" ? { command: job.command } : { prompt: job.prompt }),
    timeout_seconds: job.timeoutSeconds,
    status: job.status,
    next_run_at: isoTime(job.nextRunAt),
    created_at: isoTime(job.createdAt),
  };
}

function executionView(execution: CronExecution): Record<string, unknown> {
  return {
    id: execution.id,
    status: execution.status,
    started_at: isoTime(execution.startedAt),
    finished_at: isoTime(execution.finishedAt),
    exit_code: execution.exitCode,
    output: execution.output,
    error: execution.error,
  };
}

/** Checks the fields that depend on `execution_type`. */
function cronJobSpec(input: z.output<Schemas["createInput"]>, context: ToolContext): CronJobSpec {
  const command = input.command?.trim() ?? "";
  const prompt = input.prompt?.trim() ?? "";
  const mistake = (code: ModelErrorCode, field: string, message: string) => new ToolError(code, message, { data: { field } });
  if (input.execution_type === "shell") {
    if (command === "") throw mistake("missing_command", "command", 'execution_type "shell" needs a non-empty command.');
    if (input.prompt !== undefined)
      throw mistake("unexpected_prompt", "prompt", 'execution_type "shell" takes a command, not a prompt.');
  } else {
    if (prompt === "") throw mistake("missing_prompt", "prompt", 'execution_type "harness" needs a non-empty prompt.');
    if (input.command !== undefined)
      throw mistake("unexpected_command", "command", 'execution_type "harness" takes a prompt, not a command.');
  }
  return {
    name: input.name,
    schedule: parseCronSchedule(input.schedule).expression,
    executionType: input.execution_type,
    ...(input.execution_type === "shell" ? { command } : { prompt }),
    timeoutSeconds: input.timeout_seconds ?? DEFAULT_TIMEOUT_SECONDS,
    conversationId: conversationIdOf(context),
  };
}

function stateTool(client: CronClient, name: "cron_delete" | "cron_pause" | "cron_resume"): AnyToolDefinition {
  const texts = {
    cron_delete: [
      "Delete a cron job: it stops running; it and its history stay readable with cron_get (soft delete).",
      "Delete cron job",
    ],
    cron_pause: ["Pause a cron job (status paused) until cron_resume.", "Pause cron job"],
    cron_resume: ["Resume a paused cron job (status active).", "Resume cron job"],
  } as const;
  const [description, title] = texts[name];
  return defineTool({
    name,
    description,
    inputSchema: schemas().idInput,
    tier: "deferred",
    mutating: true,
    annotations: { title, destructiveHint: name === "cron_delete" },
    tags: ["builtin", "cron", "schedule", "job", name.slice(5)],
    handler: async ({ id }) => {
      const job =
        name === "cron_delete"
          ? await client.delete(id)
          : name === "cron_pause"
            ? await client.pause(id)
            : await client.resume(id);
      return jobView(job);
    },
  });
}

function createTools(client: CronClient): AnyToolDefinition[] {
  return [
    defineTool({
      name: "cron_create",
      description:
        'Create a recurring job on a 5-field UTC cron schedule. execution_type is required: "shell" runs a non-empty command headless and records its output; "harness" starts an assistant turn in this conversation with prompt. timeout_seconds defaults to 30.',
      inputSchema: schemas().createInput,
      tier: "deferred",
      mutating: true,
      annotations: { title: "Create cron job", destructiveHint: true },
      tags: ["builtin", "cron", "schedule", "recurring", "job", "timer", "create"],
      handler: async (input, context) => jobView(await client.create(cronJobSpec(input, context))),
    }),
    defineTool({
      name: "cron_list",
      description: "List the cron jobs with their status and next run.",
      inputSchema: schemas().listInput,
      tier: "deferred",
      annotations: { title: "List cron jobs", readOnlyHint: true },
      tags: ["builtin", "cron", "schedule", "job", "list"],
      handler: async (input) => (await client.list({ includeDeleted: input.include_deleted ?? false })).map(jobView),
    }),
    defineTool({
      name: "cron_get",
      description: "Get a cron job by id with its 5 most recent executions (newest first).",
      inputSchema: schemas().idInput,
      tier: "deferred",
      annotations: { title: "Get cron job", readOnlyHint: true },
      tags: ["builtin", "cron", "schedule", "job", "history", "executions"],
      handler: async ({ id }) => {
        const details = await client.get(id, RECENT_EXECUTIONS);
        if (details === undefined) {
          throw new ToolError("unknown_job", `There is no cron job with id ${JSON.stringify(id)}.`, {
            hint: "Call cron_list for the ids.",
          });
        }
        return { ...jobView(details.job), recent_executions: details.executions.map(executionView) };
      },
    }),
    stateTool(client, "cron_delete"),
    stateTool(client, "cron_pause"),
    stateTool(client, "cron_resume"),
  ];
}

/**
 * The scheduling tools (`cron_create`, `cron_list`, `cron_get`, `cron_delete`, `cron_pause`, `cron_resume`), present when `enableCron` and a `client` are given.
 *
 * @public
 */
export function cronToolGroup(options: CronToolOptions): ToolGroup {
  const { client } = options;
  return {
    name: "cron",
    enabled: (options.enableCron ?? true) && client !== undefined,
    tools: () => (client === undefined ? [] : createTools(client)),
  };
}
