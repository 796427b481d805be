import type { ToolDescriptor } from "../tool/tool-descriptor.js";
import type { LoadMode } from "./load-mode.js";

/**
 * The tool profiles. `lite` is another name for `minimal`.
 *
 * @public
 */
export type ToolProfileName = "core" | "full" | "acp" | "minimal" | "lite" | "none";

/**
 * Every profile name, for validation.
 *
 * @public
 */
export const TOOL_PROFILE_NAMES: readonly ToolProfileName[] = ["core", "full", "acp", "minimal", "lite", "none"];

/**
 * The tag every built-in tool carries; profiles decide about built-ins, never about host tools.
 *
 * @public
 */
export const BUILTIN_TAG = "builtin";

/**
 * The seven built-in tools the core profile sends eagerly: almost every coding turn uses them.
 *
 * @public
 */
export const CORE_ESSENTIAL_TOOLS: ReadonlySet<string> = new Set(["read", "write", "edit", "apply_patch", "bash", "ls", "grep"]);

/**
 * The tag a built-in tool carries to say it belongs to the core profile's eighteen (listed
 * behind `toolbox` in a core run, eager under `acp`). Tools declare it themselves, so the
 * profile follows the tool, not a list of names: `skill_manage`, `monitor`, `session_search`
 * and `swarm` (agent-tool-catalog/host) carry it.
 * @public
 */
export const CORE_SET_TAG = "core-set";

/**
 * The other built-in tools of the core profile (the spec's eighteen, with this library's names:
 * `agentgrep` is `grep`, `ask` is `AskUserQuestion`, `webfetch`/`websearch` are `web_fetch`/
 * `web_search`, `mcp` is `connect_mcp`). A listing run names them in the index behind `toolbox`;
 * those the host did not register (no web fetcher, no swarm, ...) are absent, silently.
 * @public
 */
export const CORE_LISTED_TOOLS: ReadonlySet<string> = new Set([
  "replace",
  "web_fetch",
  "web_search",
  "connect_mcp",
  "undo",
  "AskUserQuestion",
  "todo",
]);

/** True for a built-in tool of the core profile's listed set: by name, or by its {@link CORE_SET_TAG}. */
export function isCoreListed(tool: Pick<ToolDescriptor, "name" | "tags">): boolean {
  return CORE_LISTED_TOOLS.has(tool.name) || tool.tags.includes(CORE_SET_TAG);
}

/** What a profile decides. */
export interface ProfileRules {
  /** The profile's name. */
  readonly name: ToolProfileName;
  /** True when the run lists discoverable built-ins in a system-prompt index behind `toolbox`. */
  readonly listing: boolean;
  /** The mode of a tool, or `undefined` to leave it to its tier (core → essential, deferred → discoverable). */
  modeOf(tool: ToolDescriptor): LoadMode | undefined;
}

const isBuiltin = (tool: ToolDescriptor) => tool.tags.includes(BUILTIN_TAG);

/**
 * The rules of a profile. Decisions (the spec names the profiles, not all their contents):
 * - `core`: listing run; the seven essential built-ins eager; every other built-in core tool
 *   (the eleven of the spec, plus file_inspect, download, glob) discoverable and listed; deferred
 *   tools behind find_tool; host tools by their tier.
 * - `acp`: the same tools as core, every one eager, no index (an editor host shows them itself).
 * - `full`: every tool by its tier, no index.
 * - `minimal` / `lite`: only the seven essential built-ins; other built-ins off; host tools by tier.
 * - `none`: no tool at all.
 */
export function profileRules(name: ToolProfileName): ProfileRules {
  switch (name) {
    case "core":
      return {
        name,
        listing: true,
        modeOf: (tool) => {
          if (!isBuiltin(tool)) return undefined;
          if (CORE_ESSENTIAL_TOOLS.has(tool.name)) return "essential";
          return tool.tier === "core" || isCoreListed(tool) ? "discoverable" : undefined;
        },
      };
    case "acp":
      return {
        name,
        listing: false,
        modeOf: (tool) =>
          isBuiltin(tool) && (CORE_ESSENTIAL_TOOLS.has(tool.name) || isCoreListed(tool)) ? "essential" : undefined,
      };
    case "full":
      return { name, listing: false, modeOf: () => undefined };
    case "minimal":
    case "lite":
      return {
        name,
        listing: false,
        modeOf: (tool) => (isBuiltin(tool) ? (CORE_ESSENTIAL_TOOLS.has(tool.name) ? "essential" : "off") : undefined),
      };
    case "none":
      return { name, listing: false, modeOf: () => "off" };
  }
}
