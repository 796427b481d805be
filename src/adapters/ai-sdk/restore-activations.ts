import { FIND_TOOL_NAME, type Run } from "agent-tool-catalog";
import type { ModelMessage } from "ai";
import { activatedByFindTool, replayFindTool } from "../shared/find-tool-results.js";
import { field, isObject } from "../shared/json-fields.js";

/**
 * Rebuilds a run's activations from saved AI SDK messages (`result.response.messages` of every
 * call, or `convertToModelMessages` of the UI messages): the tools `find_tool` activated, read
 * from its `tool-result` parts, in order. For a host that persists only the messages.
 *
 * @returns the names activated or found active, in transcript order
 *
 * @example
 * ```ts
 * restoreAiSdkActivations(registry.createRun(), messages); // the saved ModelMessage[]
 * ```
 */
export function restoreAiSdkActivations(run: Run, messages: readonly ModelMessage[]): string[] {
  const restored: string[] = [];
  for (const message of messages) {
    if (message.role !== "tool" || !Array.isArray(message.content)) continue;
    for (const part of message.content) {
      if (!isObject(part) || part.type !== "tool-result" || part.toolName !== FIND_TOOL_NAME) continue;
      const output = field(part, "output");
      // `{ type: "json" | "text", value }` as the model got it; a bare value from older messages.
      const type = isObject(output) ? field(output, "type") : undefined;
      const value =
        type === "json" || type === "text" ? field(output as object, "value") : type === undefined ? output : undefined;
      restored.push(...replayFindTool(run, activatedByFindTool(value)));
    }
  }
  return restored;
}
