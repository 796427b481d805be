import { type AnyToolDefinition, defineTool, TOOL_NAME_PATTERN, type ToolContext, ToolError } from "agent-tool-catalog";
import type { z } from "zod";
import { checkEntityName } from "../shared/entity-name.js";
import { EntryLocks } from "../shared/entry-locks.js";
import { lazySchemas } from "../shared/lazy-zod.js";
import { type AgentProfile, formatAgentProfile, parseAgentProfile } from "./agent-profile.js";
import type { ProfileCatalog } from "./profile-catalog.js";
import type { ProfileDirectory } from "./profile-directory.js";
import { profileView, profileWarnings } from "./profile-view.js";

const schemas = lazySchemas((z) => {
  const toolNames = z.array(z.string().regex(TOOL_NAME_PATTERN, "must be a tool name")).max(500);
  const fields = {
    model: z.string().trim().min(1).max(200).optional().describe("Model for runs under this profile"),
    max_steps: z.number().int().min(1).max(1000).optional().describe("Most model turns per run"),
    instructions: z.string().trim().min(1).max(50_000).optional().describe("Extra system instructions"),
    allowed_tools: toolNames.optional().describe("Only these tools (plus AskUserQuestion, find_tool, skill)"),
    tool_profile: z
      .enum(["core", "full", "acp", "minimal", "lite", "none"])
      .optional()
      .describe("The tool profile (default core)"),
    disabled_tools: toolNames.optional().describe("Tools turned off"),
  };
  const nameField = z.string().min(1).max(64).describe("Profile name: lower-case letters, digits, - and _");
  const createInput = z.object({
    name: nameField,
    description: z.string().trim().min(1).max(2000).describe("What the profile is for"),
    ...fields,
  });
  const updateInput = z.object({
    name: nameField,
    description: z.string().trim().min(1).max(2000).optional().describe("What the profile is for"),
    ...fields,
  });
  const nameInput = z.object({ name: nameField });
  const validateInput = z.object({ name: nameField, toml: z.string().max(100_000).describe("The profile's TOML") });
  return { toolNames, fields, nameField, createInput, updateInput, nameInput, validateInput };
});
type Schemas = ReturnType<typeof schemas>;

type Fields = z.output<Schemas["updateInput"]>;

function merged(base: AgentProfile, input: Fields): AgentProfile {
  const tools = { ...base.tools };
  if (input.tool_profile !== undefined) tools.profile = input.tool_profile;
  if (input.disabled_tools !== undefined) tools.disabled = input.disabled_tools;
  return {
    name: base.name,
    description: input.description ?? base.description,
    model: input.model ?? base.model,
    maxSteps: input.max_steps ?? base.maxSteps,
    instructions: input.instructions ?? base.instructions,
    allowedTools: input.allowed_tools ?? base.allowedTools,
    tools: Object.keys(tools).length === 0 ? undefined : tools,
  };
}

/** Round-trips a profile through its TOML, so only what would parse back is ever written. */
function checked(profile: AgentProfile): AgentProfile {
  const parsed = parseAgentProfile(formatAgentProfile(profile), profile.name);
  if (parsed.ok) return parsed.profile;
  throw new ToolError(
    "invalid_profile",
    `Profile "${profile.name}" is not valid: ${parsed.issues.map((issue) => `${issue.field}: ${issue.message}`).join("; ")}.`,
  );
}

const TAGS = ["builtin", "profile", "agent", "config", "toml"];

function createTool(catalog: ProfileCatalog, locks: EntryLocks): AnyToolDefinition {
  return defineTool({
    name: "create_profile",
    description:
      "Create an agent profile (a TOML file in the profiles directory): description, model, max_steps, instructions, allowed tools.",
    inputSchema: schemas().createInput,
    tier: "deferred",
    mutating: true,
    annotations: { title: "Create profile" },
    tags: [...TAGS, "create", "new"],
    handler: (input, context) =>
      locks.run(input.name, async () => {
        const name = checkEntityName("Profile", input.name);
        if ((await catalog.all(context)).profiles.some((located) => located.profile.name === name)) {
          throw new ToolError("profile_exists", `A profile named "${name}" exists already.`, {
            hint: "Use update_profile, or pick another name.",
          });
        }
        const profile = checked(merged({ name, description: input.description }, input));
        await writableDirectory(catalog, context).create(profile);
        return { created: profileView({ profile, source: "directory" }), warnings: profileWarnings(profile, catalog, context) };
      }),
  });
}

function updateTool(catalog: ProfileCatalog, locks: EntryLocks): AnyToolDefinition {
  return defineTool({
    name: "update_profile",
    description: "Change fields of an agent profile in the profiles directory; fields left out keep their values.",
    inputSchema: schemas().updateInput,
    tier: "deferred",
    mutating: true,
    annotations: { title: "Update profile" },
    tags: [...TAGS, "update", "edit"],
    // Read, merge and write as one step per profile: see EntryLocks.
    handler: (input, context) =>
      locks.run(input.name, async () => {
        const located = await catalog.find(input.name, context);
        if (located.source === "builtin") {
          throw new ToolError("builtin_profile", `Profile "${input.name}" is built in and cannot be changed.`, {
            hint: "Create a new profile based on it.",
          });
        }
        const profile = checked(merged(located.profile, input));
        await writableDirectory(catalog, context).replace(profile);
        return { updated: profileView({ profile, source: "directory" }), warnings: profileWarnings(profile, catalog, context) };
      }),
  });
}

function deleteTool(catalog: ProfileCatalog, locks: EntryLocks): AnyToolDefinition {
  return defineTool({
    name: "delete_profile",
    description: "Delete an agent profile from the profiles directory.",
    inputSchema: schemas().nameInput,
    tier: "deferred",
    mutating: true,
    annotations: { title: "Delete profile", destructiveHint: true },
    tags: [...TAGS, "delete", "remove"],
    handler: (input, context) =>
      locks.run(input.name, async () => {
        // A profile file that does not parse (or is a FIFO) is what its invalid_profile hint sends
        // here to delete: refused too, the broken file could be neither updated nor deleted.
        const located = await catalog.find(input.name, context).catch((error: unknown) => {
          if (error instanceof ToolError && error.code === "invalid_profile") return undefined;
          throw error;
        });
        if (located?.source === "builtin")
          throw new ToolError("builtin_profile", `Profile "${input.name}" is built in and cannot be deleted.`);
        await writableDirectory(catalog, context).delete(input.name);
        return `Deleted profile "${input.name}".`;
      }),
  });
}

/** The profiles directory as this call sees it; the write tools exist only when there is one. */
function writableDirectory(catalog: ProfileCatalog, context: ToolContext): ProfileDirectory {
  const directory = catalog.directoryFor(context);
  if (directory === undefined) throw new Error("The profile write tools need a profiles directory.");
  return directory;
}

/** `create_profile`, `update_profile` and `delete_profile`, over the profiles directory. */
export function createProfileWriteTools(catalog: ProfileCatalog): AnyToolDefinition[] {
  const locks = new EntryLocks();
  return [createTool(catalog, locks), updateTool(catalog, locks), deleteTool(catalog, locks)];
}

/** `validate_profile`: a dry run of a profile's TOML, nothing written. */
export function createValidateProfileTool(catalog: ProfileCatalog): AnyToolDefinition {
  return defineTool({
    name: "validate_profile",
    description: "Dry-run validate an agent profile's TOML: syntax, fields, unknown tools. Writes nothing.",
    inputSchema: schemas().validateInput,
    tier: "deferred",
    annotations: { title: "Validate profile", readOnlyHint: true },
    tags: ["builtin", "profile", "validate", "check", "lint", "toml"],
    handler: async (input, context) => {
      const name = checkEntityName("Profile", input.name);
      const parsed = parseAgentProfile(input.toml, name);
      const exists = (await catalog.all(context)).profiles.some((located) => located.profile.name === name);
      if (!parsed.ok) return { valid: false, issues: parsed.issues, warnings: [], exists };
      return { valid: true, issues: [], warnings: profileWarnings(parsed.profile, catalog, context), exists };
    },
  });
}
