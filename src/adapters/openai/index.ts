// OpenAI adapter: Chat Completions and the Responses API. Structural types only: no dependency on `openai`.

export { DEFAULT_MAX_MEDIA_BYTES, type ToolResultMediaOptions } from "../shared/tool-result-media.js";
export {
  type OpenAIChatMessageLike,
  type OpenAIChatRequestOptions,
  type OpenAIChatResultMessage,
  type OpenAIChatToolsRequest,
  openAIChatRequest,
  openAIChatSystemMessage,
  openAIChatTools,
  runOpenAIChatToolCalls,
} from "./openai-chat.js";
export type { OpenAIAllowedToolsOptions, OpenAIToolsOptions, RunOpenAIToolCallsOptions } from "./openai-options.js";
export {
  type OpenAIResponsesRequestOptions,
  type OpenAIResponsesToolsOptions,
  type OpenAIResponsesToolsRequest,
  openAIResponsesRequest,
  openAIResponsesTools,
  runOpenAIResponsesFunctionCalls,
} from "./openai-responses.js";
export type {
  OpenAIAllowedToolsMode,
  OpenAIChatAllowedToolsChoice,
  OpenAIChatFunctionTool,
  OpenAIChatToolCall,
  OpenAIChatToolMessage,
  OpenAIChatUserContentPart,
  OpenAIChatUserMessage,
  OpenAIFunctionCallItem,
  OpenAIFunctionCallOutputContent,
  OpenAIFunctionCallOutputItem,
  OpenAIParametersSchema,
  OpenAIResponseItem,
  OpenAIResponsesAllowedToolsChoice,
  OpenAIResponsesFunctionTool,
  OpenAIResponsesTool,
  OpenAIResponsesToolSearchTool,
} from "./openai-types.js";
export { convertToStrictJsonSchema, type StrictJsonSchemaConversion, toStrictJsonSchema } from "./strict-json-schema.js";
export { stripOptionalNulls } from "./strip-optional-nulls.js";
export { activateToolSearchOutput, OPENAI_TOOL_SEARCH_VIA } from "./tool-search-output.js";
