import type { CreateMessageResult } from "@modelcontextprotocol/sdk/types.js";
import type { McpClientHandlers, McpSamplingRequest } from "./mcp-client-handlers.js";

/**
 * One message as the AI SDK's `generateText` takes it (text only).
 *
 * @public
 */
export interface AiSdkSamplingMessage {
  readonly role: "user" | "assistant";
  readonly content: string;
}

/**
 * The slice of the AI SDK's `generateText` the helper uses; pass `generateText` from `ai`
 * itself (this subpath does not import `ai`).
 * @public
 */
export type AiSdkGenerateText<Model> = (options: {
  model: Model;
  system?: string;
  messages: AiSdkSamplingMessage[];
  maxOutputTokens?: number;
  temperature?: number;
  stopSequences?: string[];
  abortSignal?: AbortSignal;
}) => PromiseLike<{ readonly text: string; readonly finishReason?: unknown; readonly response?: { readonly modelId?: string } }>;

/**
 * Options of {@link mcpSamplingFromAiSdk}.
 *
 * @public
 */
export interface McpAiSdkSamplingOptions<Model> {
  /** The model that answers (an AI SDK `LanguageModel`). */
  readonly model: Model;
  /** `generateText` from `ai`. */
  readonly generateText: AiSdkGenerateText<Model>;
  /**
   * The most tokens one request may use, whatever the server asks for: the host pays.
   * @defaultValue 1000
   */
  readonly maxTokens?: number;
  /** Asked before each request; `false` refuses it (the server gets an error). @defaultValue allow */
  readonly approve?: (request: McpSamplingRequest) => boolean | Promise<boolean>;
}

/**
 * A sampling handler backed by an AI SDK model: the server's messages (text; other content is
 * described in a line) go to `generateText` with its system prompt, temperature and stop
 * sequences, and at most `maxTokens` tokens.
 *
 * @example
 * ```ts
 * import { generateText } from "ai";
 * const config = { name: "everything", command: "npx", args: ["@modelcontextprotocol/server-everything"] };
 * await connectMcpServer(registry, config, { client: { sampling: mcpSamplingFromAiSdk({ model, generateText }) } });
 * ```
 * @public
 */
export function mcpSamplingFromAiSdk<Model>(options: McpAiSdkSamplingOptions<Model>): NonNullable<McpClientHandlers["sampling"]> {
  const cap = options.maxTokens ?? 1000;
  return async (request, context) => {
    if (options.approve !== undefined && !(await options.approve(request))) {
      throw new Error("The host refused the sampling request.");
    }
    const result = await options.generateText({
      model: options.model,
      messages: request.messages.map((message) => ({ role: message.role, content: textOf(message.content) })),
      maxOutputTokens: Math.max(1, Math.min(cap, request.maxTokens)),
      abortSignal: context.signal,
      ...(request.systemPrompt === undefined ? {} : { system: request.systemPrompt }),
      ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
      ...(request.stopSequences === undefined ? {} : { stopSequences: [...request.stopSequences] }),
    });
    const answer: CreateMessageResult = {
      role: "assistant",
      content: { type: "text", text: result.text },
      model: result.response?.modelId ?? "unknown",
      stopReason: stopReasonOf(result.finishReason),
    };
    return answer;
  };
}

function textOf(content: McpSamplingRequest["messages"][number]["content"]): string {
  const blocks = Array.isArray(content) ? content : [content];
  return blocks
    .map((block) => (block.type === "text" ? block.text : `[${block.type} content not passed to the model]`))
    .join("\n");
}

// The AI SDK 6 gives `{ unified, raw }`; earlier versions a string.
function stopReasonOf(reason: unknown): string {
  const unified = typeof reason === "object" && reason !== null ? (reason as { unified?: unknown }).unified : reason;
  if (unified === "length") return "maxTokens";
  return "endTurn";
}
