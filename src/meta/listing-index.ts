import type { ToolDescriptor } from "../tool/tool-descriptor.js";
import { oneLineDescription } from "./one-line-description.js";

/** The longest description of an index row, counting the `...` of a cut one. */
export const INDEX_DESCRIPTION_LIMIT = 60;

/**
 * The instruction line of the index.
 *
 * @public
 */
export const INDEX_INSTRUCTION = 'Call one with toolbox: action "run", tool "<name>", args {}.';

/**
 * The `# Additional tools` section of a listing run's system prompt: the instruction line, then
 * one `- <name>: <description>` row per tool, the description being the first sentence of its
 * first non-empty line, at most 60 characters including a trailing `...`. The model fetches
 * parameters with toolbox describe.
 */
export function listingIndex(tools: readonly ToolDescriptor[]): string {
  const rows = tools.map((tool) => `- ${tool.name}: ${oneLineDescription(tool.description, INDEX_DESCRIPTION_LIMIT)}`);
  return ["# Additional tools", INDEX_INSTRUCTION, ...rows].join("\n");
}
