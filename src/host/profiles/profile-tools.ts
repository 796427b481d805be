import { type AnyToolDefinition, defineTool, type ToolGroup } from "agent-tool-catalog";
import { lazySchemas } from "../shared/lazy-zod.js";
import { ProfileCatalog, type ProfileToolOptions } from "./profile-catalog.js";
import { profileManifest } from "./profile-manifest.js";
import { recommendProfiles } from "./profile-recommendation.js";
import { profileView } from "./profile-view.js";
import { createProfileWriteTools, createValidateProfileTool } from "./profile-write-tools.js";
import { efficiencyReport } from "./run-history.js";

const schemas = lazySchemas((z) => {
  const nameInput = z.object({ name: z.string().min(1).max(64).describe("The profile's name") });
  const recommendInput = z.object({
    task: z.string().trim().min(1).max(10_000).describe("The task to find a profile for"),
    max_results: z.number().int().min(1).max(10).optional().describe("Most profiles to suggest (default 3)"),
  });
  const reportInput = z.object({
    profile: z.string().min(1).max(64).optional().describe("Only this profile"),
    since_days: z.number().min(1).max(3650).optional().describe("Only runs of the last N days"),
  });
  const listInput = z.object({});
  return { nameInput, recommendInput, reportInput, listInput };
});

const TAGS = ["builtin", "profile", "agent"];

function listProfilesTool(catalog: ProfileCatalog): AnyToolDefinition {
  return defineTool({
    name: "list_profiles",
    description: "List the agent profiles with their descriptions.",
    inputSchema: schemas().listInput,
    tier: "deferred",
    annotations: { title: "List profiles", readOnlyHint: true },
    tags: [...TAGS, "list"],
    handler: async (_input, context) => {
      const { profiles, broken } = await catalog.all(context);
      const rows = profiles.map(({ profile, source }) => ({ name: profile.name, description: profile.description, source }));
      return broken.length === 0 ? rows : { profiles: rows, broken };
    },
  });
}

function getProfileTool(catalog: ProfileCatalog): AnyToolDefinition {
  return defineTool({
    name: "get_profile",
    description: "Get an agent profile's definition.",
    inputSchema: schemas().nameInput,
    tier: "deferred",
    annotations: { title: "Get profile", readOnlyHint: true },
    tags: [...TAGS, "get", "show"],
    handler: async (input, context) => profileView(await catalog.find(input.name, context)),
  });
}

function manifestTool(catalog: ProfileCatalog): AnyToolDefinition {
  return defineTool({
    name: "get_profile_manifest",
    description:
      "Get the effective tool manifest of a profile: eager, discoverable and listed tools, and allowed tools that do not exist.",
    inputSchema: schemas().nameInput,
    tier: "deferred",
    annotations: { title: "Profile manifest", readOnlyHint: true },
    tags: [...TAGS, "manifest", "tools", "effective"],
    handler: async (input, context) => {
      const manifest = await profileManifest((await catalog.find(input.name, context)).profile, catalog, context);
      const { toolProfile, ...rest } = manifest;
      return { ...rest, tool_profile: toolProfile };
    },
  });
}

function recommendTool(catalog: ProfileCatalog): AnyToolDefinition {
  return defineTool({
    name: "recommend_profile",
    description: "Suggest agent profiles for a task, by keyword overlap between the task and the profiles' descriptions.",
    inputSchema: schemas().recommendInput,
    tier: "deferred",
    annotations: { title: "Recommend profile", readOnlyHint: true },
    tags: [...TAGS, "recommend", "suggest", "choose"],
    handler: async (input, context) => {
      const profiles = (await catalog.all(context)).profiles.map((located) => located.profile);
      const recommendations = recommendProfiles(input.task, profiles, input.max_results ?? 3);
      return recommendations.length === 0
        ? { recommendations, note: "No profile shares a keyword with the task; use the default profile." }
        : { recommendations };
    },
  });
}

function efficiencyTool(catalog: ProfileCatalog): AnyToolDefinition {
  return defineTool({
    name: "get_efficiency_report",
    description: "Report on profiles' run history: runs, success rate, mean steps, tool calls, tokens and duration.",
    inputSchema: schemas().reportInput,
    tier: "deferred",
    annotations: { title: "Efficiency report", readOnlyHint: true },
    tags: [...TAGS, "report", "efficiency", "history", "metrics", "cost"],
    handler: async (input) => {
      const since = input.since_days === undefined ? undefined : catalog.clock.now() - input.since_days * 86_400_000;
      const report = efficiencyReport(await catalog.history.records({ profile: input.profile, since }));
      if (report.length === 0) return { profiles: [], note: "No run history recorded." };
      return {
        profiles: report.map((row) => ({
          profile: row.profile,
          runs: row.runs,
          success_rate: row.successRate,
          average_steps: row.averageSteps,
          average_tool_calls: row.averageToolCalls,
          average_tokens: row.averageTokens,
          average_duration_ms: row.averageDurationMs,
          tokens_per_success: row.tokensPerSuccess,
        })),
      };
    },
  });
}

function readTools(catalog: ProfileCatalog): AnyToolDefinition[] {
  return [
    listProfilesTool(catalog),
    getProfileTool(catalog),
    manifestTool(catalog),
    recommendTool(catalog),
    efficiencyTool(catalog),
  ];
}

/**
 * The profile tools. Reading, validating and recommending are always present; `create_profile`,
 * `update_profile` and `delete_profile` only with a `profilesDir`.
 * @public
 */
export function profileToolGroup(options: ProfileToolOptions = {}): ToolGroup {
  return {
    name: "profiles",
    tools: () => {
      const catalog = new ProfileCatalog(options);
      const tools = [...readTools(catalog), createValidateProfileTool(catalog)];
      if (catalog.directory !== undefined) tools.push(...createProfileWriteTools(catalog));
      return tools;
    },
  };
}
