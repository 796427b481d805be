// A scripted AI SDK model for tests that drive a real `generateText` loop: it plays the steps it
// is given, in order, and records what the SDK sent it each time.
import type { LanguageModelV3CallOptions, LanguageModelV3Content, LanguageModelV3GenerateResult } from "@ai-sdk/provider";
import { MockLanguageModelV3 } from "ai/test";

/** The token usage every scripted step reports. */
export const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 5, text: 5, reasoning: 0 },
};

/** A tool call the model makes: `input` is sent as its JSON text. */
export const toolCall = (id: string, toolName: string, input: unknown): LanguageModelV3Content => ({
  type: "tool-call",
  toolCallId: id,
  toolName,
  input: JSON.stringify(input),
});

/**
 * A model that plays one step per entry (its content: tool calls, text), then says "done"; a step
 * with a tool call finishes as "tool-calls", any other as "stop". `seen` holds what it was sent.
 */
export function scriptedModel(steps: LanguageModelV3Content[][]) {
  const seen: LanguageModelV3CallOptions[] = [];
  const model = new MockLanguageModelV3({
    doGenerate: async (options): Promise<LanguageModelV3GenerateResult> => {
      seen.push(options);
      const content = steps[seen.length - 1] ?? [{ type: "text", text: "done" }];
      const calls = content.some((part) => part.type === "tool-call");
      return { content, finishReason: { unified: calls ? "tool-calls" : "stop", raw: undefined }, usage, warnings: [] };
    },
  });
  return { model, seen };
}
