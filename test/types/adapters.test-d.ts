// Type tests of the public API's inference (run by `vitest --typecheck`, part of `npm test`).
import type Anthropic from "@anthropic-ai/sdk";
import {
  createRegistry,
  defineTool,
  type Run,
  type ToolCallResult,
  type ToolContent,
  type ToolDefinition,
  toolContent,
} from "agent-tool-catalog";
import { type AiSdkContentOutput, type AiSdkToolError, createAiSdkTools } from "agent-tool-catalog/ai-sdk";
import { type AnthropicTextBlockParam, anthropicSystem } from "agent-tool-catalog/anthropic";
import { type OpenAIChatResultMessage, openAIChatRequest, runOpenAIChatToolCalls } from "agent-tool-catalog/openai";
import type { generateText, InferToolInput, InferToolOutput, ToolSet } from "ai";
import type OpenAI from "openai";
import { describe, expectTypeOf, it } from "vitest";
import { z } from "zod";

const echo = defineTool({
  name: "echo",
  description: "Echo.",
  inputSchema: z.object({ text: z.string(), times: z.number().int().default(1) }),
  handler: ({ text, times }) => ({ echoed: text.repeat(times) }),
});
const shot = defineTool({
  name: "screenshot",
  description: "A screenshot.",
  inputSchema: z.object({}),
  handler: () => toolContent([{ type: "text", text: "page" }]),
});
declare const run: Run;

describe("defineTool", () => {
  it("types the handler's input from the schema (defaults applied) and keeps the output type", () => {
    expectTypeOf(echo).toEqualTypeOf<ToolDefinition<{ text: string; times: number }, { echoed: string }>>();
    expectTypeOf(shot).toEqualTypeOf<ToolDefinition<Record<string, never>, ToolContent>>();
  });

  it("run.call returns a ToolCallResult", () => {
    expectTypeOf(run.call("echo", {})).toEqualTypeOf<Promise<ToolCallResult>>();
    expectTypeOf(createRegistry().createRun()).toEqualTypeOf<Run>();
  });
});

describe("createAiSdkTools", () => {
  it("is an untyped ToolSet without definitions", () => {
    const { tools } = createAiSdkTools(run);
    expectTypeOf(tools).toEqualTypeOf<ToolSet>();
  });

  it("types the tools given as definitions: input, output, a rich result's output", () => {
    const { tools } = createAiSdkTools(run, { definitions: { echo, screenshot: shot } });
    expectTypeOf<InferToolInput<typeof tools.echo>>().toEqualTypeOf<{ text: string; times: number }>();
    expectTypeOf<InferToolOutput<typeof tools.echo>>().toEqualTypeOf<{ echoed: string } | AiSdkContentOutput | AiSdkToolError>();
    expectTypeOf<InferToolOutput<typeof tools.screenshot>>().toEqualTypeOf<AiSdkContentOutput | AiSdkToolError>();
    // @ts-expect-error: only the typed tools are keys of the typed set
    tools.not_a_tool;
  });

  it("types the calls in result.steps: static for typed tools, dynamic for the rest", async () => {
    const { tools, prepareStep } = createAiSdkTools(run, { definitions: { echo } });
    type Result = Awaited<ReturnType<typeof generateText<typeof tools>>>;
    const result = {} as Result;
    for (const call of result.steps[0]?.toolCalls ?? []) {
      if (call.dynamic) expectTypeOf(call.input).toEqualTypeOf<unknown>();
      else if (call.toolName === "echo") expectTypeOf(call.input).toEqualTypeOf<{ text: string; times: number }>();
    }
    expectTypeOf(prepareStep).returns.toHaveProperty("activeTools").toEqualTypeOf<"echo"[]>();
  });
});

describe("provider helpers", () => {
  it("anthropicSystem keeps the kind of system prompt it is given", () => {
    expectTypeOf(anthropicSystem(run, "Be brief.")).toEqualTypeOf<string>();
    expectTypeOf(anthropicSystem(run)).toEqualTypeOf<string | undefined>();
    expectTypeOf(anthropicSystem(run, [{ type: "text", text: "Be brief." }])).toEqualTypeOf<AnthropicTextBlockParam[]>();
    expectTypeOf<AnthropicTextBlockParam[]>().toExtend<Anthropic.Messages.MessageCreateParams["system"]>();
  });

  it("openAIChatRequest returns the conversation in the caller's message type", () => {
    const messages: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [{ role: "user", content: "hi" }];
    expectTypeOf(openAIChatRequest(run, { messages }).messages).toEqualTypeOf<
      OpenAI.Chat.Completions.ChatCompletionMessageParam[]
    >();
    expectTypeOf(openAIChatRequest(run)).not.toHaveProperty("messages");
    expectTypeOf(runOpenAIChatToolCalls(run, [])).toEqualTypeOf<Promise<OpenAIChatResultMessage[]>>();
    expectTypeOf<OpenAIChatResultMessage>().toExtend<OpenAI.Chat.Completions.ChatCompletionMessageParam>();
  });
});
