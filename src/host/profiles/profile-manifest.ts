import type { CreateRunOptions, ToolContext } from "agent-tool-catalog";
import type { AgentProfile } from "./agent-profile.js";
import type { ProfileCatalog } from "./profile-catalog.js";

/**
 * The tools a profile's runs get, as `get_profile_manifest` reports them.
 *
 * @public
 */
export interface ProfileManifest {
  /** The profile. */
  readonly profile: string;
  /** The tool profile its runs use. */
  readonly toolProfile: string;
  /** True when computed from a real run of the host's registry; false when only declared. */
  readonly exact: boolean;
  /** Tools sent on every turn. */
  readonly eager: readonly string[];
  /** Tools reached through `find_tool`. */
  readonly discoverable: readonly string[];
  /** Tools named in the system-prompt index, reached through `toolbox`. */
  readonly listed: readonly string[];
  /** `allowed_tools` entries no tool answers to. */
  readonly missing: readonly string[];
}

/** The run options a profile stands for: its `[tools]` table and its allow-list. */
export function runOptionsOf(profile: AgentProfile): CreateRunOptions {
  return {
    environment: {},
    ...(profile.tools === undefined ? {} : { config: profile.tools }),
    ...(profile.allowedTools === undefined ? {} : { allowedTools: profile.allowedTools }),
  };
}

/**
 * The effective tool manifest of a profile. With the host's registry, a throwaway run is created
 * with the profile's options and asked what it offers, so the answer follows the same rules as
 * a real run; without one, the declared allow-list is checked against the calling run.
 */
export async function profileManifest(
  profile: AgentProfile,
  catalog: ProfileCatalog,
  context: ToolContext,
): Promise<ProfileManifest> {
  const toolProfile = profile.tools?.profile ?? "core";
  const missing = (profile.allowedTools ?? []).filter((name) => !catalog.isKnownTool(name, context));
  const registry = catalog.registry();
  if (registry === undefined) {
    const declared = (profile.allowedTools ?? []).filter((name) => !missing.includes(name));
    return { profile: profile.name, toolProfile, exact: false, eager: declared, discoverable: [], listed: [], missing };
  }
  const run = registry.createRun(runOptionsOf(profile));
  try {
    const eager = run.definitions().map((tool) => tool.name);
    const discoverable = run
      .availableTools()
      .map((tool) => tool.name)
      .filter((name) => !eager.includes(name));
    const listed = registry
      .list()
      .map((tool) => tool.name)
      .filter((name) => run.isListed(name));
    return { profile: profile.name, toolProfile, exact: true, eager, discoverable, listed, missing };
  } finally {
    await run.close();
  }
}
