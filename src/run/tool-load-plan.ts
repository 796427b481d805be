import { ConfigurationError } from "../errors/configuration-error.js";
import { TOOLBOX_TOOL_NAME } from "../meta/meta-tools.js";
import { LOAD_MODES, type LoadMode, type ToolPlacement } from "../profiles/load-mode.js";
import { parseProfileName, type ToolConfig } from "../profiles/tool-config.js";
import { BUILTIN_TAG, type ProfileRules, profileRules, type ToolProfileName } from "../profiles/tool-profile.js";
import { allowEntryNames, DeniedNames, denyEntryNames, foldedMcpAlternative } from "../tool/fold-tool-name.js";
import type { ToolDescriptor } from "../tool/tool-descriptor.js";
import { ALWAYS_AVAILABLE_TOOLS } from "./always-available-tools.js";

export { TOOLBOX_TOOL_NAME } from "../meta/meta-tools.js";

/**
 * The environment variable that picks a profile.
 *
 * @public
 */
export const PROFILE_ENVIRONMENT_VARIABLE = "AGENT_TOOL_PROFILE";

/**
 * The load options of a run.
 *
 * @public
 */
export interface ToolLoadOptions {
  /**
   * The profile; else, for a child run (`createRun({ parent })`), its parent's; else
   * `AGENT_TOOL_PROFILE`, else `config.profile`, else `"core"`.
   *
   * @example
   * ```ts
   * import { createRegistry } from "agent-tool-catalog";
   *
   * const registry = createRegistry();
   * const parent = registry.createRun({ profile: "minimal" });
   * console.log(registry.createRun({ parent }).loading.profile); // "minimal": inherited
   * console.log(registry.createRun({ parent, profile: "core" }).loading.profile); // "core": asked otherwise
   * ```
   */
  readonly profile?: ToolProfileName;
  /**
   * Per-tool load modes; they win over the profile. A name may be written as an MCP server spells
   * it (`mcp_Docs_Write.File` for `mcp_docs_write_file`): `off` then covers every tool whose name
   * folds alike (fails closed, host tools too: `BASH` turns off `bash`), any other mode only the
   * one folded MCP name, as `allowedTools` matches (see `disabledTools`). A name with a `*` is a
   * glob for `off` (`mcp_docs_*: "off"`) and an exact name for any other mode.
   */
  readonly loadModes?: Readonly<Record<string, LoadMode>>;
  /**
   * Tools turned off. An entry turns off the tool of that name and every tool whose name folds
   * to the same (lower case, NFKD without marks, characters outside `[a-z0-9_]` as `_`, as MCP
   * names are registered), and, for an entry that would be hashed as an MCP name (past 64
   * characters, or with characters beyond `-`, `/`, `.` and space), every hashed name keeping the
   * same first 53 characters. An entry with a `*` is a glob over folded names (`*` is any run of
   * name characters: `mcp_Docs_*` turns off every tool of the server `docs`, and a host tool
   * folding like one), and a hashed name when some name keeping its first characters would match.
   * An entry that covers no tool is reported (`unknown_load_mode_tool`), a glob matching nothing too.
   * A child run made from this run's scope keeps them off (`RunScope.disabledTools`).
   *
   * @example
   * ```ts
   * // Every tool of the MCP server "docs" (however the server spells its names), and bash.
   * const parent = registry.createRun({ disabledTools: ["mcp_docs_*", "BASH"] });
   * // A subagent's run keeps them off, whatever its own load modes say.
   * const child = registry.createRun({ parent: parent.scope(), loadModes: { bash: "essential" } });
   * const result = await child.call("bash", { command: "ls" }); // { ok: false, error: { code: "tool_disabled" } }
   * ```
   */
  readonly disabledTools?: readonly string[];
  /** A parsed configuration (`parseToolConfig`); explicit options win over it. */
  readonly config?: ToolConfig;
  /** Where `AGENT_TOOL_PROFILE` is read. @defaultValue `process.env` where there is one */
  readonly environment?: Readonly<Record<string, string | undefined>>;
}

/**
 * Where each tool stands in one run: essential, discoverable (behind find_tool, or listed behind
 * toolbox) or off. A placement is fixed the first time it is asked for, so a configuration
 * reload never moves a tool between tiers mid-run; only a new (restored) run decides again.
 */
export class ToolLoadPlan {
  /** The profile in force. */
  readonly profile: ToolProfileName;
  /** True when this run lists discoverable built-ins in the index behind toolbox. */
  readonly listing: boolean;
  private readonly rules: ProfileRules;
  private readonly overrides: ReadonlyMap<string, LoadMode>;
  /** The `off` entries, each matched as `denyEntryNames` says (src/tool/fold-tool-name.ts). */
  private readonly denied: DeniedNames;
  /** Other modes written otherwise than their folded name, keyed by that folded name. */
  private readonly foldedModes: ReadonlyMap<string, LoadMode>;
  private readonly placements = new Map<string, ToolPlacement>();

  /** The `off` entries: the load options' and those a parent run's scope passed down. */
  private readonly deniedList: readonly string[];

  /**
   * @param inheritedDenials - a parent run's deny entries (`RunScope.disabledTools`): off here
   * too, whatever `options` say; they are not reported again when they cover no tool.
   */
  constructor(
    options: ToolLoadOptions,
    explicitAllowList: boolean,
    inheritedDenials: readonly string[] = [],
    inheritedProfile?: ToolProfileName,
  ) {
    const environment =
      options.environment ?? (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env ?? {};
    const fromEnvironment = environment[PROFILE_ENVIRONMENT_VARIABLE];
    // A child run presents its parent's profile (a subagent of a `minimal` run is `minimal` too)
    // unless it names its own; the parent already weighed the environment and its configuration.
    this.profile =
      options.profile !== undefined
        ? parseProfileName(options.profile)
        : inheritedProfile !== undefined
          ? inheritedProfile
          : fromEnvironment !== undefined && fromEnvironment !== ""
            ? parseProfileName(fromEnvironment, PROFILE_ENVIRONMENT_VARIABLE)
            : (options.config?.profile ?? "core");
    this.rules = profileRules(this.profile);
    this.overrides = mergeOverrides(options);
    const own = [...this.overrides].filter(([, mode]) => mode === "off").map(([name]) => name);
    this.deniedList = Object.freeze([...new Set([...own, ...inheritedDenials])]);
    this.denied = new DeniedNames(this.deniedList);
    const foldedModes = new Map<string, LoadMode>();
    for (const [name, mode] of this.overrides) {
      // Other modes match as allow lists do: only an MCP name, by a spelling that folds to it.
      const folded = mode === "off" ? undefined : foldedMcpAlternative(name);
      if (folded !== undefined && !this.overrides.has(folded) && !foldedModes.has(folded)) foldedModes.set(folded, mode);
    }
    this.foldedModes = foldedModes;
    const toolboxOverride = this.overrideOf(TOOLBOX_TOOL_NAME);
    // An allow-list, or toolbox turned off, makes a non-listing run: every listed tool goes eager.
    this.listing = this.rules.listing && !explicitAllowList && toolboxOverride !== "off";
  }

  /** The tools the load options name (their modes override the profile's), as written. */
  overriddenNames(): Iterable<string> {
    return this.overrides.keys();
  }

  /** The deny entries in force, own and inherited, for a child run's scope. */
  deniedEntries(): readonly string[] {
    return this.deniedList;
  }

  /** The names the load options give a mode other than `off`: as written, and folded. */
  prominentNames(): string[] {
    return [...this.overrides.keys(), ...this.foldedModes.keys()];
  }

  /**
   * True when the load option entry `entry` covers the registered name `name`: the same name,
   * for `off` any name it denies (see `denyEntryNames`), for another mode as an allow entry
   * (`allowEntryNames`: its folded name if an MCP name).
   */
  covers(entry: string, name: string): boolean {
    return this.overrides.get(entry) === "off" ? denyEntryNames(entry, name) : allowEntryNames(entry, name);
  }

  /**
   * The mode the load options give the tool `name`. `off` wins over every other entry that
   * names it (`disabledTools: ["mcp_docs_Write-File"]` turns off `mcp_docs_write_file` even
   * beside `loadModes: { mcp_docs_write_file: "essential" }`): a deny list fails closed. Then
   * the entry of that exact name, then one that folds to it.
   */
  private overrideOf(name: string): LoadMode | undefined {
    if (this.denied.denies(name)) return "off";
    return this.overrides.get(name) ?? this.foldedModes.get(name);
  }

  /**
   * The placement of a tool, decided once for the tools a profile or override can move (core,
   * built-in, named). Any other tool is deferred and discoverable by its tier alone, which no
   * reload can change: it is not remembered, so a run keeps no entry per registry tool.
   */
  placementOf(tool: ToolDescriptor): ToolPlacement {
    const known = this.placements.get(tool.name);
    if (known !== undefined) return known;
    const placement = this.decide(tool);
    if (tool.tier === "core" || tool.tags.includes(BUILTIN_TAG) || this.overrideOf(tool.name) !== undefined) {
      this.placements.set(tool.name, placement);
    }
    return placement;
  }

  private decide(tool: ToolDescriptor): ToolPlacement {
    const override = this.overrideOf(tool.name);
    if (this.profile === "none") return { mode: "off", listed: false };
    if (tool.name === TOOLBOX_TOOL_NAME) {
      // An explicit "discoverable" toolbox is promoted: listing needs a way to reach the tools.
      return { mode: this.listing ? "essential" : "off", listed: false };
    }
    const fromProfile = this.rules.modeOf(tool);
    // A profile never turns off an always-available tool (AskUserQuestion, find_tool, skill):
    // only an explicit override of the host can.
    const chosen = override ?? (fromProfile === "off" && ALWAYS_AVAILABLE_TOOLS.has(tool.name) ? undefined : fromProfile);
    const mode: LoadMode = chosen ?? (tool.tier === "core" ? "essential" : "discoverable");
    if (mode !== "discoverable" || chosen === undefined) return { mode, listed: false };
    // Discoverable by choice (profile or override), not by tier: listed, or eager without listing.
    return this.listing
      ? { mode, listed: true }
      : { mode: override === "discoverable" ? "discoverable" : "essential", listed: false };
  }
}

function mergeOverrides(options: ToolLoadOptions): ReadonlyMap<string, LoadMode> {
  const merged = new Map<string, LoadMode>();
  const add = (
    modes: Readonly<Record<string, LoadMode>> | undefined,
    disabled: readonly string[] | undefined,
    source: string,
  ) => {
    for (const [name, mode] of Object.entries(modes ?? {})) {
      if (!LOAD_MODES.includes(mode)) {
        throw new ConfigurationError(
          "invalid_load_mode",
          `${source}.${name} must be one of ${LOAD_MODES.join(", ")}; got ${JSON.stringify(mode)}.`,
          {
            data: { field: `${source}.${name}` },
          },
        );
      }
      merged.set(name, mode);
    }
    for (const name of disabled ?? []) merged.set(name, "off");
  };
  add(options.config?.loadModes, options.config?.disabled, "config.loadModes");
  add(options.loadModes, options.disabledTools, "loadModes");
  return merged;
}
