import type { ToolPlacement } from "../profiles/load-mode.js";
import type { ToolCallErrorInfo } from "../tool/tool-call-result.js";

/** What the check needs to know of a run about one tool. */
export interface VisibilityFacts {
  /** The tool exists and is enabled. */
  readonly exists: boolean;
  /** `allowedTools`, ownership and skill constraints let it through. */
  readonly allowed: boolean;
  /** Its placement in the run, when it exists. */
  readonly placement: ToolPlacement | undefined;
  /** It was activated in this run. */
  readonly active: boolean;
  /** The call comes through toolbox. */
  readonly viaToolbox: boolean;
  /** The closest names this run could use, for an unknown name. */
  readonly suggestions: () => string[];
}

/** Longest part of an unknown name quoted back (tool names have at most 64 characters). */
const MAX_QUOTED_NAME = 80;

/** Quotes a name the model sent, cut to {@link MAX_QUOTED_NAME} characters. */
export function quoteName(name: unknown): string {
  const text = typeof name === "string" ? name : String(typeof name);
  return JSON.stringify(text.length > MAX_QUOTED_NAME ? `${text.slice(0, MAX_QUOTED_NAME)}…` : text);
}

/**
 * Why the model may not call `name` now, as the error it reads (with the way to get the tool
 * where there is one), or `undefined` when it may.
 */
export function visibilityError(name: string, facts: VisibilityFacts): ToolCallErrorInfo | undefined {
  if (typeof name !== "string" || !facts.exists || facts.placement === undefined) {
    const suggestions = facts.suggestions();
    return {
      code: "unknown_tool",
      message: `There is no tool named ${quoteName(name)}.`,
      hint:
        suggestions.length > 0
          ? `Did you mean ${suggestions.map((s) => `"${s}"`).join(" or ")}?`
          : "Call find_tool to search for a tool.",
      suggestions,
    };
  }
  if (!facts.allowed) {
    return {
      code: "tool_not_allowed",
      message: `The tool "${name}" is not allowed in this run.`,
      hint: "Use one of the tools you were given.",
    };
  }
  const { mode, listed } = facts.placement;
  if (mode === "off") {
    return {
      code: "tool_disabled",
      message: `The tool "${name}" is turned off in this run.`,
      hint: "Use one of the tools you were given.",
    };
  }
  if (listed) {
    if (facts.viaToolbox) return undefined;
    return {
      code: "use_toolbox",
      message: `The tool "${name}" is reached through toolbox.`,
      hint: `Call toolbox with {"action":"describe","tool":"${name}"} for its parameters, then {"action":"run","tool":"${name}","args":{...}}.`,
    };
  }
  if (mode === "discoverable" && !facts.active) {
    return {
      code: "tool_not_activated",
      message: `The tool "${name}" exists but is not active yet.`,
      hint: `Call find_tool with {"query":"select:${name}"} first, then call "${name}" again.`,
    };
  }
  return undefined;
}
