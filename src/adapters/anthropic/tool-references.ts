import type { Run } from "agent-tool-catalog";
import { entries, field, isObject } from "../shared/json-fields.js";
import { NativeSearchActivations } from "../shared/native-search-activations.js";
import type { AnthropicContentBlock } from "./anthropic-types.js";

/**
 * The `via` of activations made by the provider's tool search (see the `tool.activated` event).
 *
 * @public
 */
export const ANTHROPIC_TOOL_SEARCH_VIA = "anthropic_tool_search";

const searchActivations = new NativeSearchActivations(ANTHROPIC_TOOL_SEARCH_VIA);

/**
 * Activates in `run` the tools that the provider's tool search returned in `content` (the
 * `tool_reference`s of `tool_search_tool_result` blocks), so that the `tool_use` of a deferred tool
 * the model just loaded passes `run.call()`.
 *
 * Call it on every assistant message (`runAnthropicToolUses` does it first). A run rebuilt from a
 * saved conversation gets these activations back from `run.restoreFromTranscript(messages)`: the
 * tools keep being sent with `defer_loading`, and the request bytes stay what they were.
 *
 * @returns the referenced names that are callable now (activated here or active already); names the
 * run does not know are left out, and a call of them gets an `unknown_tool` result
 * @public
 */
export function activateToolReferences(run: Run, content: readonly AnthropicContentBlock[]): string[] {
  return searchActivations.activate(run, referencedToolNames(content));
}

/** True when the provider's tool search loaded `name` in `run` (its definition is in the conversation). */
export function loadedByToolSearch(run: Run, name: string): boolean {
  return searchActivations.has(run, name);
}

/** The tool names of every `tool_reference` in `tool_search_tool_result` blocks, first occurrence first. */
function referencedToolNames(content: readonly AnthropicContentBlock[]): string[] {
  const names = new Set<string>();
  for (const block of entries(content)) {
    if (field(block, "type") !== "tool_search_tool_result") continue;
    const result = field(block, "content");
    if (!isObject(result) || field(result, "type") !== "tool_search_tool_search_result") continue;
    for (const reference of entries(field(result, "tool_references"))) {
      const name =
        isObject(reference) && field(reference, "type") === "tool_reference" ? field(reference, "tool_name") : undefined;
      if (typeof name === "string") names.add(name);
    }
  }
  return [...names];
}
