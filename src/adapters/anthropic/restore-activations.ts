import { FIND_TOOL_NAME, type Run } from "agent-tool-catalog";
import { activatedByFindTool, replayFindTool } from "../shared/find-tool-results.js";
import { field, isObject } from "../shared/json-fields.js";
import type { AnthropicContentBlock } from "./anthropic-types.js";
import { activateToolReferences } from "./tool-references.js";

/**
 * Rebuilds a run's activations from a saved Messages API conversation, in the order they happened:
 * the tools `find_tool` activated (its `tool_result`s) and the tools the provider's tool search
 * loaded (`tool_reference`s, see {@link activateToolReferences}). For a host that persists only the
 * messages: a fresh run then sends the same tools, in the same order, as the one that was lost.
 *
 * @returns the names activated or found active, in transcript order
 *
 * @example
 * ```ts
 * const restored = registry.createRun();
 * restoreAnthropicActivations(restored, messages); // the saved conversation
 * ```
 */
export function restoreAnthropicActivations(
  run: Run,
  messages: readonly { readonly role: string; readonly content: unknown }[],
): string[] {
  const findToolCalls = new Set<string>();
  const restored: string[] = [];
  for (const message of messages) {
    if (!Array.isArray(message.content)) continue;
    const blocks = message.content as readonly AnthropicContentBlock[];
    if (message.role === "assistant") {
      restored.push(...activateToolReferences(run, blocks));
      for (const id of findToolUseIds(blocks)) findToolCalls.add(id);
      continue;
    }
    for (const block of blocks) {
      if (!isObject(block) || block.type !== "tool_result" || field(block, "is_error") === true) continue;
      const id = field(block, "tool_use_id");
      if (typeof id !== "string" || !findToolCalls.has(id)) continue;
      restored.push(...replayFindTool(run, activatedByFindTool(resultText(field(block, "content")))));
    }
  }
  return restored;
}

/** The ids of the `tool_use` blocks that call `find_tool`. */
function findToolUseIds(blocks: readonly AnthropicContentBlock[]): string[] {
  return blocks.flatMap((block) => {
    const id =
      isObject(block) && block.type === "tool_use" && field(block, "name") === FIND_TOOL_NAME ? field(block, "id") : undefined;
    return typeof id === "string" ? [id] : [];
  });
}

/** The text of a `tool_result`'s content: a string, or its text blocks joined. */
function resultText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((block) => (isObject(block) && field(block, "type") === "text" ? String(field(block, "text")) : ""))
    .join("");
}
