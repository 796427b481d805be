import { type AnyToolDefinition, createRunStorageKey, defineTool, type ToolContext, ToolError } from "agent-tool-catalog";
import { type AgentDepthOptions, checkAgentDepthOptions, childDepthOf } from "../agents/agent-depth.js";
import type { AgentRunner } from "../agents/agent-runner.js";
import { contextRun, type RunResolver } from "../shared/host-run.js";
import { lazySchemas } from "../shared/lazy-zod.js";
import type { SkillDocument } from "./skill-document.js";
import type { SkillStore } from "./skill-store.js";

/**
 * What the `skill` tool needs.
 *
 * @public
 */
export interface SkillToolOptions extends AgentDepthOptions {
  /** Where skills come from. */
  readonly store: SkillStore;
  /**
   * Finds the calling run, to apply a skill's `allowed-tools`.
   * @defaultValue the run of the call's context (`contextRun`)
   */
  readonly resolveRun?: RunResolver;
  /** Runs `context: fork` skills; without it they are refused. */
  readonly agentRunner?: AgentRunner;
}

/** The constraints this run's active inline skills hold: skill name to release function. */
const ACTIVE_SKILLS = createRunStorageKey("active-skills", () => new Map<string, () => void>());

const schemas = lazySchemas((z) => {
  const skillInput = z.object({
    action: z
      .enum(["invoke", "end", "list"])
      .optional()
      .describe('"invoke" a skill (default), "end" an active one, or "list" the skills'),
    name: z.string().min(1).max(64).optional().describe("The skill's name (for invoke and end)"),
    arguments: z.string().max(20_000).optional().describe("Input for the skill; replaces $ARGUMENTS in its instructions"),
  });
  return { skillInput };
});

function withArguments(body: string, args: string | undefined): string {
  if (args === undefined || args === "") return body;
  return body.includes("$ARGUMENTS") ? body.replaceAll("$ARGUMENTS", args) : `${body}\n\nARGUMENTS: ${args}`;
}

async function list(store: SkillStore): Promise<string> {
  const { skills, broken } = await store.list();
  const lines = skills.map((skill) => `- ${skill.name}${skill.context === "fork" ? " (fork)" : ""}: ${skill.description}`);
  for (const skill of broken) lines.push(`- ${skill.name} (broken: ${skill.error})`);
  return lines.length === 0 ? "No skills are installed." : `Skills:\n${lines.join("\n")}`;
}

async function find(store: SkillStore, name: string | undefined): Promise<SkillDocument> {
  if (name === undefined)
    throw new ToolError("invalid_input", "name is required to invoke a skill.", { data: { field: "name" } });
  const skill = await store.get(name);
  if (skill !== undefined) return skill;
  const names = (await store.list()).skills.map((candidate) => candidate.name);
  throw new ToolError("unknown_skill", `There is no skill named ${JSON.stringify(name)}.`, {
    hint: names.length === 0 ? "No skills are installed." : `Skills: ${names.join(", ")}.`,
  });
}

function applyConstraint(skill: SkillDocument, context: ToolContext, options: SkillToolOptions): string {
  const active = context.storage.get(ACTIVE_SKILLS);
  const allowed = skill.allowedTools;
  if (allowed === undefined || active.has(skill.name)) return "";
  const run = (options.resolveRun ?? contextRun)(context);
  if (run === undefined) {
    throw new ToolError(
      "skill_constraint_unavailable",
      `Skill "${skill.name}" limits its tools, and this host cannot apply that limit, so it is not run.`,
      {
        hint: "Do the task without the skill.",
      },
    );
  }
  active.set(skill.name, run.applySkillConstraint(skill.name, allowed));
  return `\n\nWhile this skill is active you may use only: ${[...new Set([...allowed, "AskUserQuestion", "find_tool", "skill"])].join(", ")}. When done, call skill with {"action":"end","name":"${skill.name}"}.`;
}

async function fork(
  skill: SkillDocument,
  args: string | undefined,
  context: ToolContext,
  options: SkillToolOptions,
): Promise<string> {
  if (options.agentRunner === undefined) {
    throw new ToolError(
      "fork_unavailable",
      `Skill "${skill.name}" runs in a forked subagent, and this host has no agent runner.`,
    );
  }
  const result = await options.agentRunner.runPrompt({
    prompt: withArguments(skill.body, args),
    depth: childDepthOf(context, options),
    model: skill.model,
    allowedTools: skill.allowedTools,
    parentRunId: context.runId,
    scope: context.scope,
    signal: context.signal,
  });
  return `Skill "${skill.name}" ran in a subagent. Its result:\n\n${result.output}`;
}

function end(name: string | undefined, context: ToolContext): string {
  if (name === undefined) throw new ToolError("invalid_input", "name is required to end a skill.", { data: { field: "name" } });
  const active = context.storage.get(ACTIVE_SKILLS);
  const release = active.get(name);
  if (release === undefined) return `Skill "${name}" is not active; nothing to end.`;
  release();
  active.delete(name);
  return `Skill "${name}" ended; its tool limits are lifted.`;
}

/**
 * `skill`: invokes a skill. An inline skill's body is returned for the conversation and its
 * `allowed-tools` narrow the run until `{"action":"end"}`; a `context: fork` skill runs in a
 * subagent limited to those tools, and only its result comes back. Always available: it
 * bypasses allowed-tools and skill constraints, so an active skill can always be ended.
 * @public
 */
export function createSkillTool(options: SkillToolOptions): AnyToolDefinition {
  checkAgentDepthOptions(options, "createSkillTool");
  return defineTool({
    name: "skill",
    description: 'Invoke a skill (a packaged set of instructions) by name, end an active one, or list them: {"action":"list"}.',
    inputSchema: schemas().skillInput,
    tier: "core",
    annotations: { title: "Skill" },
    tags: ["builtin", "skill", "instructions", "playbook", "invoke"],
    handler: async (input, context) => {
      const action = input.action ?? "invoke";
      if (action === "list") return list(options.store);
      if (action === "end") return end(input.name, context);
      const skill = await find(options.store, input.name);
      if (skill.context === "fork") return fork(skill, input.arguments, context, options);
      const limits = applyConstraint(skill, context, options);
      return `<skill name="${skill.name}">\n${withArguments(skill.body, input.arguments)}\n</skill>${limits}`;
    },
  });
}
