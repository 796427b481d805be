import { ALWAYS_AVAILABLE_TOOLS, type Registry, type ToolContext, ToolError } from "agent-tool-catalog";
import { type Clock, systemClock } from "../shared/clock.js";
import { checkEntityName } from "../shared/entity-name.js";
import { WorkspaceAnchoredStores } from "../shared/workspace-anchored-stores.js";
import type { AgentProfile } from "./agent-profile.js";
import { type BrokenProfile, ProfileDirectory } from "./profile-directory.js";
import { InMemoryRunHistory, type RunHistorySource } from "./run-history.js";

/**
 * The part of a registry the profile tools read: tool names and throwaway runs for manifests.
 *
 * @public
 */
export type ProfileManifestRegistry = Pick<Registry, "createRun" | "get" | "list">;

/**
 * Options of {@link profileToolGroup}.
 *
 * @public
 */
export interface ProfileToolOptions {
  /** Where profile TOML files live. Without it `create_profile`, `update_profile` and `delete_profile` are absent. */
  readonly profilesDir?: string;
  /** Read-only profiles the host ships; a file of the same name in `profilesDir` wins. @defaultValue none */
  readonly profiles?: readonly AgentProfile[];
  /**
   * The registry profiles apply to, for exact manifests and for warnings about unknown tools (a
   * function, since the group is built before the registry exists).
   * @defaultValue none: manifests list the declared tools, checked against the calling run
   */
  readonly registry?: () => ProfileManifestRegistry;
  /** Run history for `get_efficiency_report`. @defaultValue an empty history */
  readonly history?: RunHistorySource;
  /** Time source for `since_days`. @defaultValue the system clock */
  readonly clock?: Clock;
}

/**
 * A profile and where it comes from.
 *
 * @public
 */
export interface LocatedProfile {
  /** The profile. */
  readonly profile: AgentProfile;
  /** `builtin` (the host's, read-only) or `directory` (a file in `profilesDir`). */
  readonly source: "builtin" | "directory";
}

/**
 * The profiles the tools see: the host's built-ins overlaid with the directory's files. A
 * profiles directory inside the calling run's workspace is anchored at that workspace (see
 * {@link ProfileCatalog.directoryFor}).
 */
export class ProfileCatalog {
  /** The directory as configured (anchored at itself), when there is one. */
  readonly directory: ProfileDirectory | undefined;
  private readonly stores: WorkspaceAnchoredStores<ProfileDirectory> | undefined;
  /** Run history. */
  readonly history: RunHistorySource;
  /** Time source. */
  readonly clock: Clock;
  private readonly options: ProfileToolOptions;

  constructor(options: ProfileToolOptions) {
    this.options = options;
    const { profilesDir } = options;
    this.stores =
      profilesDir === undefined || profilesDir === ""
        ? undefined
        : new WorkspaceAnchoredStores(profilesDir, (anchor) => new ProfileDirectory(profilesDir, anchor));
    this.directory = this.stores?.configured;
    this.history = options.history ?? new InMemoryRunHistory();
    this.clock = options.clock ?? systemClock;
  }

  /**
   * The profiles directory as a call sees it: anchored at the run's workspace when it lies inside
   * it (see `WorkspaceAnchoredStores`), else at itself.
   */
  directoryFor(context: ToolContext | undefined): ProfileDirectory | undefined {
    return this.stores?.for(context);
  }

  /** Every profile, by name, and the broken files. */
  async all(
    context: ToolContext | undefined,
  ): Promise<{ readonly profiles: LocatedProfile[]; readonly broken: readonly BrokenProfile[] }> {
    const byName = new Map<string, LocatedProfile>();
    for (const profile of this.options.profiles ?? []) byName.set(profile.name, { profile, source: "builtin" });
    const listed = (await this.directoryFor(context)?.list()) ?? { profiles: [], broken: [] };
    for (const profile of listed.profiles) byName.set(profile.name, { profile, source: "directory" });
    const profiles = [...byName.values()].sort((a, b) => a.profile.name.localeCompare(b.profile.name));
    return { profiles, broken: listed.broken };
  }

  /**
   * One profile.
   * @throws ToolError `unknown_profile` (with the names that exist) or `invalid_profile`.
   */
  async find(name: string, context: ToolContext | undefined): Promise<LocatedProfile> {
    checkEntityName("Profile", name);
    const parsed = await this.directoryFor(context)?.read(name);
    if (parsed?.ok === true) return { profile: parsed.profile, source: "directory" };
    if (parsed?.ok === false) {
      throw new ToolError(
        "invalid_profile",
        `Profile "${name}" does not parse: ${parsed.issues.map((issue) => `${issue.field}: ${issue.message}`).join("; ")}.`,
        {
          // update_profile merges into the profile it reads, which it cannot: delete, then create.
          hint: "Delete it with delete_profile, then create it again with create_profile.",
        },
      );
    }
    const builtin = this.options.profiles?.find((profile) => profile.name === name);
    if (builtin !== undefined) return { profile: builtin, source: "builtin" };
    const names = (await this.all(context)).profiles.map((located) => located.profile.name);
    throw new ToolError("unknown_profile", `There is no profile named "${name}".`, {
      hint: names.length === 0 ? "No profiles exist yet." : `Profiles: ${names.join(", ")}.`,
    });
  }

  /** The registry, when the host gave one. */
  registry(): ProfileManifestRegistry | undefined {
    return this.options.registry?.();
  }

  /** True when a tool of this name exists, as far as this call can tell. */
  isKnownTool(name: string, context: ToolContext): boolean {
    if (ALWAYS_AVAILABLE_TOOLS.has(name)) return true;
    const registry = this.registry();
    return registry === undefined ? context.catalog.describe(name) !== undefined : registry.get(name) !== undefined;
  }
}
