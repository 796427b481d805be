import type { ToolContext } from "agent-tool-catalog";
import type { AgentProfile } from "./agent-profile.js";
import type { LocatedProfile, ProfileCatalog } from "./profile-catalog.js";

/** A profile as the model reads it (snake_case, like the TOML). */
export function profileView(located: LocatedProfile): Record<string, unknown> {
  const { profile } = located;
  return {
    name: profile.name,
    description: profile.description,
    source: located.source,
    model: profile.model,
    max_steps: profile.maxSteps,
    instructions: profile.instructions,
    allowed_tools: profile.allowedTools,
    tool_profile: profile.tools?.profile,
    disabled_tools: profile.tools?.disabled,
  };
}

/** Warnings about a profile that does not make it invalid: tools no one answers to. */
export function profileWarnings(profile: AgentProfile, catalog: ProfileCatalog, context: ToolContext): string[] {
  const names = [...(profile.allowedTools ?? []), ...(profile.tools?.disabled ?? [])];
  return [...new Set(names)]
    .filter((name) => !catalog.isKnownTool(name, context))
    .map((name) => `no tool named "${name}" is registered`);
}
