// Anthropic Messages API adapter. Structural types only: no dependency on `@anthropic-ai/sdk`.
export {
  type AnthropicClientMessage,
  type AnthropicMessageParam,
  type AnthropicMessagesClient,
  type AnthropicMessagesRequest,
  type AnthropicMessagesResponse,
  type AnthropicTextBlockParam,
  type AnthropicToolLoopOptions,
  type AnthropicToolLoopResult,
  type AnthropicToolParam,
  anthropicToolLoop,
} from "./anthropic-tool-loop.js";
export { type AnthropicToolsOptions, anthropicTools } from "./anthropic-tools.js";
export type {
  AnthropicContentBlock,
  AnthropicCustomTool,
  AnthropicInputSchema,
  AnthropicTool,
  AnthropicToolResultBlock,
  AnthropicToolSearchTool,
  AnthropicToolSearchVariant,
  AnthropicToolUseBlock,
} from "./anthropic-types.js";
export { type RunAnthropicToolUsesOptions, runAnthropicToolUses } from "./run-anthropic-tool-uses.js";
export { ANTHROPIC_TOOL_SEARCH_VIA, activateToolReferences } from "./tool-references.js";
