import type { Run } from "agent-tool-catalog";
import { entries, field } from "../shared/json-fields.js";
import { NativeSearchActivations } from "../shared/native-search-activations.js";
import type { OpenAIResponseItem } from "./openai-types.js";

/**
 * The `via` of activations made by OpenAI's tool search (see the `tool.activated` event).
 *
 * @public
 */
export const OPENAI_TOOL_SEARCH_VIA = "openai_tool_search";

const searchActivations = new NativeSearchActivations(OPENAI_TOOL_SEARCH_VIA);

/**
 * Activates in `run` the function tools that OpenAI's hosted tool search loaded (the `tools` of
 * `tool_search_output` items, including the functions of namespaces), so that a `function_call` of
 * a deferred tool the model just loaded passes `run.call()`. `runOpenAIResponsesFunctionCalls` calls
 * it first. A run rebuilt from saved items gets these activations back from
 * `run.restoreFromTranscript(items)`: the tools keep being sent with `defer_loading`, and the
 * request bytes stay what they were.
 *
 * @returns the loaded names that are callable now (activated here or active already); names the run
 * does not know are left out, and a call of them gets an `unknown_tool` result
 * @public
 */
export function activateToolSearchOutput(run: Run, output: readonly OpenAIResponseItem[]): string[] {
  return searchActivations.activate(run, loadedToolNames(output));
}

/** True when OpenAI's tool search loaded `name` in `run`. */
export function loadedByToolSearch(run: Run, name: string): boolean {
  return searchActivations.has(run, name);
}

function loadedToolNames(output: readonly OpenAIResponseItem[]): string[] {
  const names = new Set<string>();
  const collect = (tools: unknown): void => {
    for (const tool of entries(tools)) {
      const type = field(tool, "type");
      const name = field(tool, "name");
      if (type === "function" && typeof name === "string") names.add(name);
      else if (type === "namespace") collect(field(tool, "tools"));
    }
  };
  for (const item of entries(output)) {
    if (field(item, "type") === "tool_search_output") collect(field(item, "tools"));
  }
  return [...names];
}
