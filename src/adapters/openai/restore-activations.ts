import { FIND_TOOL_NAME, type Run } from "agent-tool-catalog";
import { activatedByFindTool, replayFindTool } from "../shared/find-tool-results.js";
import { field, isObject } from "../shared/json-fields.js";
import type { OpenAIResponseItem } from "./openai-types.js";
import { activateToolSearchOutput } from "./tool-search-output.js";

/**
 * Rebuilds a run's activations from saved Responses API items (the inputs and outputs of every
 * turn), in the order they happened: the tools `find_tool` activated (its `function_call_output`s)
 * and the tools the hosted tool search loaded (`tool_search_output`s). For a host that persists
 * only the conversation.
 *
 * @returns the names activated or found active, in transcript order
 *
 * @example
 * ```ts
 * restoreOpenAIResponsesActivations(registry.createRun(), input); // the saved items
 * ```
 */
export function restoreOpenAIResponsesActivations(run: Run, items: readonly object[]): string[] {
  const findToolCalls = new Set<string>();
  const restored: string[] = [];
  for (const item of items) {
    if (!isObject(item)) continue;
    const type = field(item, "type");
    if (type === "tool_search_output") restored.push(...activateToolSearchOutput(run, [item as OpenAIResponseItem]));
    else if (type === "function_call" && field(item, "name") === FIND_TOOL_NAME) {
      const id = field(item, "call_id");
      if (typeof id === "string") findToolCalls.add(id);
    } else if (type === "function_call_output" && findToolCalls.has(String(field(item, "call_id")))) {
      const output = field(item, "output");
      const text = typeof output === "string" ? output : JSON.stringify(output);
      restored.push(...replayFindTool(run, activatedByFindTool(text)));
    }
  }
  return restored;
}

/**
 * Rebuilds a run's activations from a saved Chat Completions conversation: the tools `find_tool`
 * activated, read from the `tool` messages that answer its calls, in order.
 *
 * @returns the names activated or found active, in transcript order
 *
 * @example
 * ```ts
 * restoreOpenAIChatActivations(registry.createRun(), messages); // the saved conversation
 * ```
 */
export function restoreOpenAIChatActivations(
  run: Run,
  messages: readonly {
    readonly role: string;
    readonly content?: unknown;
    readonly tool_calls?: unknown;
    readonly tool_call_id?: unknown;
  }[],
): string[] {
  const findToolCalls = new Set<string>();
  const restored: string[] = [];
  for (const message of messages) {
    if (message.role === "assistant" && Array.isArray(message.tool_calls)) {
      for (const call of message.tool_calls) {
        const fn = isObject(call) ? field(call, "function") : undefined;
        const id = isObject(call) ? field(call, "id") : undefined;
        if (isObject(fn) && field(fn, "name") === FIND_TOOL_NAME && typeof id === "string") findToolCalls.add(id);
      }
    } else if (message.role === "tool" && typeof message.tool_call_id === "string" && findToolCalls.has(message.tool_call_id)) {
      restored.push(...replayFindTool(run, activatedByFindTool(message.content)));
    }
  }
  return restored;
}
