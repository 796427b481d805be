import { ALWAYS_AVAILABLE_TOOLS, type AnyToolDefinition, defineTool, ToolError, type ToolGroup } from "agent-tool-catalog";
import { type AgentDepthOptions, checkAgentDepthOptions } from "../agents/agent-depth.js";
import type { AgentRunner } from "../agents/agent-runner.js";
import { checkEntityName } from "../shared/entity-name.js";
import type { RunResolver } from "../shared/host-run.js";
import { isoTime } from "../shared/iso-time.js";
import { lazySchemas } from "../shared/lazy-zod.js";
import { DirectorySkillStore } from "./directory-skill-store.js";
import type { PackRegistry, SkillPack } from "./pack-registry.js";
import { formatSkillDocument, parseSkillDocument } from "./skill-document.js";
import type { SkillStore } from "./skill-store.js";
import { createSkillTool } from "./skill-tool.js";
import type { SkillVerifier } from "./skill-verifier.js";

/**
 * Options of {@link skillToolGroup}.
 *
 * @public
 */
export interface SkillToolGroupOptions extends AgentDepthOptions {
  /**
   * The host's `EnableSkills` switch.
   * @defaultValue true
   */
  readonly enableSkills?: boolean;
  /** The skills directory (`<dir>/<name>/SKILL.md`): enables `create_skill`, and `skill` over it. */
  readonly skillsDir?: string;
  /** Where `skill` finds skills. @defaultValue a `DirectorySkillStore` on `skillsDir` */
  readonly store?: SkillStore;
  /** Enables `verify_skill`; `new DirectorySkillVerifier(store)` is the default implementation. */
  readonly verifier?: SkillVerifier;
  /** Enables `manage_skill_packs`; `InMemoryPackRegistry` is the default implementation. */
  readonly packs?: PackRegistry;
  /** Finds the calling run, to apply `allowed-tools` (see {@link RunDirectory}). */
  readonly resolveRun?: RunResolver;
  /** Runs `context: fork` skills. */
  readonly agentRunner?: AgentRunner;
}

const schemas = lazySchemas((z) => {
  const createInput = z.object({
    name: z.string().min(1).max(64).describe("The skill's name: lower-case letters, digits, - and _ (its folder name)"),
    description: z.string().trim().min(1).max(1024).describe("When to use the skill: what the model reads to pick it"),
    body: z
      .string()
      .trim()
      .min(1)
      .max(100_000)
      .describe("The instructions, in Markdown; $ARGUMENTS is replaced by the invocation's arguments"),
    allowed_tools: z.array(z.string().min(1).max(64)).max(200).optional().describe("Tools the skill may use while active"),
    context: z.enum(["inline", "fork"]).optional().describe('"fork" runs the skill in a subagent (default inline)'),
  });
  const packInput = z.object({
    action: z.enum(["list", "search", "activate"]).describe("list the packs, search them by keywords, or activate one"),
    query: z.string().trim().min(1).max(500).optional().describe("For search: keywords"),
    name: z.string().min(1).max(200).optional().describe("For activate: the pack's name"),
  });
  const verifyInput = z.object({ name: z.string().min(1).max(64).describe("The skill's name") });
  return { createInput, packInput, verifyInput };
});

function createSkillAuthoringTool(directory: DirectorySkillStore): AnyToolDefinition {
  return defineTool({
    name: "create_skill",
    description:
      "Author a new skill: writes <skills dir>/<name>/SKILL.md with YAML front matter (name, description, allowed-tools, context) and the body.",
    inputSchema: schemas().createInput,
    tier: "deferred",
    mutating: true,
    annotations: { title: "Create skill" },
    tags: ["builtin", "skill", "create", "author", "write", "playbook"],
    handler: async (input) => {
      const name = checkEntityName("Skill", input.name);
      const skill = {
        name,
        description: input.description,
        allowedTools: input.allowed_tools,
        context: input.context ?? "inline",
        body: input.body,
      } as const;
      // Parse what would be written, so a skill that could not be read back is never created.
      parseSkillDocument(formatSkillDocument(skill), name);
      await directory.create(skill);
      return `Created skill "${name}" at ${directory.pathOf(name, "SKILL.md")}. Invoke it with skill {"name":"${name}"}.`;
    },
  });
}

function createVerifyTool(verifier: SkillVerifier): AnyToolDefinition {
  return defineTool({
    name: "verify_skill",
    description: "Validate a skill (front matter, body, tools it names) and write verification metadata next to it.",
    inputSchema: schemas().verifyInput,
    tier: "deferred",
    mutating: true,
    annotations: { title: "Verify skill" },
    tags: ["builtin", "skill", "verify", "validate", "check", "lint"],
    handler: async (input, context) => {
      const verification = await verifier.verify(checkEntityName("Skill", input.name), {
        isKnownTool: (tool) => ALWAYS_AVAILABLE_TOOLS.has(tool) || context.catalog.describe(tool) !== undefined,
      });
      return {
        name: verification.name,
        valid: verification.valid,
        issues: verification.issues,
        verified_at: isoTime(verification.verifiedAt),
      };
    },
  });
}

const packView = (pack: SkillPack) => ({
  name: pack.name,
  description: pack.description,
  skills: pack.skills,
  active: pack.active,
});

function createPackTool(packs: PackRegistry): AnyToolDefinition {
  return defineTool({
    name: "manage_skill_packs",
    description: "Manage skill pack subscriptions: list the packs, search them by keywords, or activate one.",
    inputSchema: schemas().packInput,
    tier: "deferred",
    mutating: true,
    annotations: { title: "Skill packs" },
    tags: ["builtin", "skill", "pack", "subscription", "install", "activate", "search"],
    handler: async (input) => {
      if (input.action === "list") return (await packs.list()).map(packView);
      if (input.action === "search") {
        if (input.query === undefined)
          throw new ToolError("invalid_input", 'action "search" needs query.', { data: { field: "query" } });
        return (await packs.search(input.query)).map(packView);
      }
      if (input.name === undefined)
        throw new ToolError("invalid_input", 'action "activate" needs name.', { data: { field: "name" } });
      return { activated: packView(await packs.activate(input.name)) };
    },
  });
}

/**
 * The skill tools: `skill` (always available) over a store, `create_skill` with a `skillsDir`,
 * `verify_skill` with a `verifier`, `manage_skill_packs` with `packs`. The group is present when
 * `enableSkills` holds and at least one of them is.
 * @public
 */
export function skillToolGroup(options: SkillToolGroupOptions): ToolGroup {
  checkAgentDepthOptions(options, "skillToolGroup");
  const directory =
    options.skillsDir === undefined || options.skillsDir === "" ? undefined : new DirectorySkillStore(options.skillsDir);
  const store = options.store ?? directory;
  const tools = (): AnyToolDefinition[] => {
    const out: AnyToolDefinition[] = [];
    if (store !== undefined) out.push(createSkillTool({ ...options, store }));
    if (directory !== undefined) out.push(createSkillAuthoringTool(directory));
    if (options.verifier !== undefined) out.push(createVerifyTool(options.verifier));
    if (options.packs !== undefined) out.push(createPackTool(options.packs));
    return out;
  };
  const any = store !== undefined || options.verifier !== undefined || options.packs !== undefined;
  return { name: "skills", enabled: (options.enableSkills ?? true) && any, tools };
}
