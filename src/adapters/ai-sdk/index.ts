// Vercel AI SDK (`ai` v6) adapter. `ai` is an optional peer dependency of this subpath only.

export { DEFAULT_MAX_MEDIA_BYTES, type SendablePart, type ToolResultMediaOptions } from "../shared/tool-result-media.js";
export {
  type AiSdkAgentRequest,
  type AiSdkAgentResult,
  type AiSdkAgentRunnerOptions,
  createAiSdkAgentRunner,
} from "./ai-sdk-agent-runner.js";
export { type AiSdkContentOutput, type AiSdkModelOutput, isContentOutput } from "./ai-sdk-model-output.js";
export {
  type AiSdkApprovalFlow,
  type AiSdkToolDefinitions,
  type AiSdkToolError,
  type AiSdkToolOutput,
  type AiSdkTools,
  type AiSdkToolsOptions,
  type AiSdkTypedToolSet,
  createAiSdkTools,
} from "./create-ai-sdk-tools.js";
