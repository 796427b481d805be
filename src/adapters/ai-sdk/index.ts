// Vercel AI SDK (`ai` v6) adapter. `ai` is an optional peer dependency of this subpath only.

export {
  type AiSdkAgentRequest,
  type AiSdkAgentResult,
  type AiSdkAgentRunnerOptions,
  createAiSdkAgentRunner,
} from "./ai-sdk-agent-runner.js";
export {
  type AiSdkApprovalFlow,
  type AiSdkToolError,
  type AiSdkTools,
  type AiSdkToolsOptions,
  createAiSdkTools,
} from "./create-ai-sdk-tools.js";
