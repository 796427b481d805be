import { ConfigurationError, FIND_TOOL_NAME, type Run, type ToolDescriptor } from "agent-tool-catalog";
import { ANTHROPIC_ROOT_REFUSED, withoutRefusedRootKeywords } from "../shared/root-keywords.js";
import type {
  AnthropicCustomTool,
  AnthropicInputSchema,
  AnthropicTool,
  AnthropicToolSearchTool,
  AnthropicToolSearchVariant,
} from "./anthropic-types.js";
import { loadedByToolSearch } from "./tool-references.js";

/**
 * Options of {@link anthropicTools}.
 *
 * @public
 */
export interface AnthropicToolsOptions {
  /**
   * Offer deferred tools through the Messages API's own tool search instead of `find_tool`: every
   * tool the run may see is sent, deferred ones with `defer_loading: true`, `find_tool` is left out
   * and the provider's search tool (`"bm25"` or `"regex"`) is added in front. The provider then
   * keeps deferred definitions out of the prompt until a search loads them. Needs a model that
   * supports tool search.
   * @defaultValue `undefined`: the `find_tool` path (only `run.definitions()` is sent)
   */
  readonly nativeToolSearch?: AnthropicToolSearchVariant;
}

const SEARCH_TOOLS: Readonly<Record<AnthropicToolSearchVariant, AnthropicToolSearchTool>> = {
  bm25: { type: "tool_search_tool_bm25_20251119", name: "tool_search_tool_bm25" },
  regex: { type: "tool_search_tool_regex_20251119", name: "tool_search_tool_regex" },
};

/**
 * The run's tools as Messages API tool definitions, for `messages.create({ tools })`. Build them
 * for every request: a tool activated in one turn is sent from the next one on.
 *
 * The order is the registry's (core tools, then activations in activation order on the `find_tool`
 * path; registration order with `nativeToolSearch`), so the tools prefix of the prompt only grows
 * at its end and prompt caching keeps working across turns.
 *
 * With `nativeToolSearch`, a deferred tool keeps `defer_loading: true` after the provider's search
 * loaded it (its definition then reaches the model through the `tool_reference` in the
 * conversation, which leaves the cached prefix untouched); a deferred tool the host activated
 * itself (`run.activate`) is sent in full.
 *
 * @example
 * ```ts
 * const response = await anthropic.messages.create({ model, max_tokens: 1024, messages, tools: anthropicTools(run) });
 * ```
 * @public
 */
export function anthropicTools(run: Run, options: AnthropicToolsOptions = {}): AnthropicTool[] {
  const variant = options.nativeToolSearch;
  if (variant === undefined) return run.definitions().map((descriptor) => toCustomTool(descriptor, false));
  const search = Object.hasOwn(SEARCH_TOOLS, variant) ? SEARCH_TOOLS[variant] : undefined;
  if (search === undefined) {
    throw new ConfigurationError(
      "invalid_native_tool_search",
      `nativeToolSearch must be "bm25" or "regex", got ${JSON.stringify(variant)}.`,
      { data: { field: "nativeToolSearch", value: variant } },
    );
  }
  const tools: AnthropicTool[] = [{ ...search }];
  for (const descriptor of run.availableTools()) {
    if (descriptor.name === FIND_TOOL_NAME) continue;
    const deferred =
      descriptor.tier === "deferred" && (!run.isVisible(descriptor.name) || loadedByToolSearch(run, descriptor.name));
    tools.push(toCustomTool(descriptor, deferred));
  }
  return tools;
}

function toCustomTool(descriptor: ToolDescriptor, deferred: boolean): AnthropicCustomTool {
  const { description, schema } = withoutRefusedRootKeywords(descriptor, ANTHROPIC_ROOT_REFUSED);
  const tool: AnthropicCustomTool = { name: descriptor.name, description, input_schema: schema satisfies AnthropicInputSchema };
  return deferred ? { ...tool, defer_loading: true } : tool;
}
