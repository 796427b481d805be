// Vercel AI SDK (`ai` v6) adapter. `ai` is an optional peer dependency of this subpath only.
export {
  type AiSdkApprovalFlow,
  type AiSdkToolError,
  type AiSdkTools,
  type AiSdkToolsOptions,
  createAiSdkTools,
} from "./create-ai-sdk-tools.js";
