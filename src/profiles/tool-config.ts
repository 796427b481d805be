import type { parse } from "smol-toml";
import { ConfigurationError } from "../errors/configuration-error.js";
import { closestNames } from "../tool/closest-names.js";
import { loadOnDemand } from "../tool/load-on-demand.js";
import { LOAD_MODES, type LoadMode } from "./load-mode.js";
import { TOOL_PROFILE_NAMES, type ToolProfileName } from "./tool-profile.js";

// Loaded by the first configuration parsed, never by the root import.
const smolToml = loadOnDemand<{ parse: typeof parse }>("smol-toml");

/** The keys of `[tools]`: what {@link parseToolConfig} reads. */
const TOOLS_KEYS: readonly string[] = ["profile", "disabled", "redo", "hashline_edit", "load_mode"];

/**
 * The `[tools]` table of a configuration file.
 *
 * @public
 */
export interface ToolConfig {
  /** `[tools] profile`. */
  readonly profile?: ToolProfileName;
  /** `[tools.load_mode]`: per-tool overrides. */
  readonly loadModes?: Readonly<Record<string, LoadMode>>;
  /** `[tools] disabled`: tools turned off (same as load mode `off`). */
  readonly disabled?: readonly string[];
  /** `[tools] redo`: let `undo` redo. */
  readonly redo?: boolean;
  /** `[tools] hashline_edit`: line-anchored reads and edits. */
  readonly hashlineEdit?: boolean;
}

/**
 * Parses the `[tools]` table of a TOML configuration:
 * ```toml
 * [tools]
 * profile = "core"
 * disabled = ["download"]
 * [tools.load_mode]
 * batch = "off"
 * ```
 * Other tables of the file are left alone; a key of `[tools]` other than `profile`, `disabled`,
 * `redo`, `hashline_edit` and `load_mode` is refused (a misspelling would leave its default).
 * @throws ConfigurationError `invalid_tool_config` naming the key and what was expected.
 * @public
 */
export function parseToolConfig(toml: string, source = "configuration"): ToolConfig {
  let document: Record<string, unknown>;
  try {
    document = smolToml().parse(toml) as Record<string, unknown>;
  } catch (error) {
    throw new ConfigurationError("invalid_tool_config", `${source} is not valid TOML: ${(error as Error).message}`, {
      cause: error,
    });
  }
  const tools = document.tools;
  if (tools === undefined) return {};
  if (!isTable(tools)) throw invalid(source, "tools", "a table");
  refuseUnknownKeys(tools, source);
  const out: { -readonly [K in keyof ToolConfig]: ToolConfig[K] } = {};
  if (tools.profile !== undefined) out.profile = parseProfileName(tools.profile, `${source}: tools.profile`);
  if (tools.disabled !== undefined) {
    if (!Array.isArray(tools.disabled) || !tools.disabled.every((name) => typeof name === "string"))
      throw invalid(source, "tools.disabled", "an array of tool names");
    out.disabled = tools.disabled as string[];
  }
  for (const [key, field] of [
    ["redo", "redo"],
    ["hashline_edit", "hashlineEdit"],
  ] as const) {
    const value = tools[key];
    if (value === undefined) continue;
    if (typeof value !== "boolean") throw invalid(source, `tools.${key}`, "true or false");
    out[field] = value;
  }
  if (tools.load_mode !== undefined) {
    if (!isTable(tools.load_mode)) throw invalid(source, "tools.load_mode", "a table of tool = mode");
    const modes: Record<string, LoadMode> = {};
    for (const [name, mode] of Object.entries(tools.load_mode)) {
      if (!LOAD_MODES.includes(mode as LoadMode))
        throw invalid(source, `tools.load_mode.${name}`, `one of ${LOAD_MODES.join(", ")}`);
      // An own property even for "__proto__" (a valid tool name): an assignment would set the
      // prototype instead and drop the entry without a word.
      Object.defineProperty(modes, name, { value: mode as LoadMode, enumerable: true, writable: true, configurable: true });
    }
    out.loadModes = modes;
  }
  return out;
}

/**
 * Checks a profile name.
 * @throws ConfigurationError `invalid_tool_profile` listing the valid names.
 */
export function parseProfileName(value: unknown, where = "profile"): ToolProfileName {
  if (typeof value === "string" && TOOL_PROFILE_NAMES.includes(value as ToolProfileName)) return value as ToolProfileName;
  throw new ConfigurationError(
    "invalid_tool_profile",
    `${where} must be one of ${TOOL_PROFILE_NAMES.join(", ")}; got ${JSON.stringify(value)}.`,
    {
      data: { field: where },
    },
  );
}

/**
 * A misspelled key (`profle`, `load-mode`) would silently leave its default (the core profile,
 * every tool on): refuse it, as a misspelled permission field is refused.
 */
function refuseUnknownKeys(tools: Record<string, unknown>, source: string): void {
  for (const key of Object.keys(tools)) {
    if (TOOLS_KEYS.includes(key)) continue;
    const closest = closestNames(key, TOOLS_KEYS, 1);
    throw new ConfigurationError(
      "invalid_tool_config",
      `${source}: tools.${key} is not a [tools] key${closest.length > 0 ? `; did you mean "${closest[0]}"?` : ""} (keys: ${TOOLS_KEYS.join(", ")}).`,
      { data: { field: `tools.${key}` } },
    );
  }
}

function isTable(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

function invalid(source: string, key: string, expected: string): ConfigurationError {
  return new ConfigurationError("invalid_tool_config", `${source}: ${key} must be ${expected}.`, { data: { field: key } });
}

/**
 * The file-tool switches a configuration sets (`[tools] redo`, `[tools] hashline_edit`).
 *
 * @public
 */
export interface FileToolSwitches {
  /** `undo` may redo. */
  readonly redo?: boolean;
  /** Line-anchored reads and edits. */
  readonly hashline?: boolean;
}

/**
 * The options to give `createFileTools` so that `[tools] redo` and `[tools] hashline_edit` take
 * effect: `createFileTools({ root, ...fileToolOptionsFromConfig(config) })`. Only the keys
 * the configuration sets are present, so explicit options placed after it still win.
 * @public
 */
export function fileToolOptionsFromConfig(config: ToolConfig | undefined): FileToolSwitches {
  const out: { redo?: boolean; hashline?: boolean } = {};
  if (config?.redo !== undefined) out.redo = config.redo;
  if (config?.hashlineEdit !== undefined) out.hashline = config.hashlineEdit;
  return out;
}
