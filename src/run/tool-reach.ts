import type { ToolPlacement } from "../profiles/load-mode.js";

/**
 * How a tool reaches the model in one run: the one question that tier, load mode, profile,
 * listing and toolbox answer together.
 *
 * - `sent`: its schema is in every request (`run.definitions()`); the model calls it directly.
 * - `listed`: one line in the system-prompt index (`run.systemPromptIndex()`); the model calls it
 *   through `toolbox` (describe, then run).
 * - `searchable`: behind `find_tool`; once found (activated) it is `sent` for the rest of the run.
 * - `off`: neither sent, listed nor findable, and not callable in this run.
 * @public
 */
export type ToolReach = "sent" | "listed" | "searchable" | "off";

/**
 * Every reach, from the most to the least present.
 *
 * @public
 */
export const TOOL_REACHES: readonly ToolReach[] = Object.freeze(["sent", "listed", "searchable", "off"]);

/** The reach of a placement (`active`: a searchable tool the run already activated is sent). */
export function reachOfPlacement(placement: ToolPlacement, active: boolean): ToolReach {
  if (placement.mode === "off") return "off";
  if (placement.mode === "essential") return "sent";
  if (placement.listed) return "listed";
  return active ? "sent" : "searchable";
}
