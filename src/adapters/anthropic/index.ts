// Anthropic Messages API adapter. Structural types only: no dependency on `@anthropic-ai/sdk`.

export { DEFAULT_MAX_MEDIA_BYTES, type ToolResultMediaOptions } from "../shared/tool-result-media.js";
export { type AnthropicTextBlockParam, anthropicSystem } from "./anthropic-system.js";
export {
  type AnthropicClientMessage,
  type AnthropicMessageParam,
  type AnthropicMessagesClient,
  type AnthropicMessagesRequest,
  type AnthropicMessagesResponse,
  type AnthropicToolLoopOptions,
  type AnthropicToolLoopResult,
  type AnthropicToolParam,
  anthropicToolLoop,
} from "./anthropic-tool-loop.js";
export { anthropicToolResult } from "./anthropic-tool-result.js";
export { type AnthropicToolsOptions, anthropicTools } from "./anthropic-tools.js";
export type {
  AnthropicContentBlock,
  AnthropicCustomTool,
  AnthropicInputSchema,
  AnthropicResultDocumentBlock,
  AnthropicResultImageBlock,
  AnthropicResultTextBlock,
  AnthropicTool,
  AnthropicToolResultBlock,
  AnthropicToolResultContentBlock,
  AnthropicToolSearchTool,
  AnthropicToolSearchVariant,
  AnthropicToolUseBlock,
} from "./anthropic-types.js";
export { type RunAnthropicToolUsesOptions, runAnthropicToolUses } from "./run-anthropic-tool-uses.js";
export { ANTHROPIC_TOOL_SEARCH_VIA, activateToolReferences } from "./tool-references.js";
