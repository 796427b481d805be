// Type-level checks against `openai`: `tsc` (in `npm test`) fails when an adapter shape stops
// matching the SDK's, in either direction (what we send, what we accept).
import { createRegistry, defineTool } from "agent-tool-catalog";
import {
  type OpenAIChatAllowedToolsChoice,
  type OpenAIChatToolCall,
  type OpenAIResponseItem,
  type OpenAIResponsesAllowedToolsChoice,
  openAIChatRequest,
  openAIChatTools,
  openAIResponsesRequest,
  openAIResponsesTools,
  runOpenAIChatToolCalls,
  runOpenAIResponsesFunctionCalls,
} from "agent-tool-catalog/openai";
import type OpenAI from "openai";
import { describe, expect, expectTypeOf, it } from "vitest";
import { z } from "zod";

function run() {
  const registry = createRegistry({
    tools: [
      defineTool({
        name: "echo",
        description: "Echo.",
        inputSchema: z.object({ text: z.string() }),
        handler: ({ text }) => text,
      }),
      defineTool({
        name: "later",
        description: "A deferred tool.",
        tier: "deferred",
        inputSchema: z.object({ n: z.number().optional() }),
        handler: ({ n }) => `n=${String(n)}`,
      }),
    ],
  });
  return registry.createRun();
}

describe("OpenAI SDK types: Chat Completions", () => {
  it("tools and tool_choice are what chat.completions.create() takes", () => {
    const current = run();
    const tools: OpenAI.Chat.Completions.ChatCompletionTool[] = openAIChatTools(current, { strict: true });
    const request = openAIChatRequest(current, { allowedToolsChoice: true });
    const choice: OpenAI.Chat.Completions.ChatCompletionToolChoiceOption | undefined = request.tool_choice;
    const params: OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming = {
      model: "gpt-4.1",
      messages: [{ role: "user", content: "hi" }],
      ...request,
    };
    expectTypeOf<OpenAIChatAllowedToolsChoice>().toExtend<OpenAI.Chat.Completions.ChatCompletionAllowedToolChoice>();
    expect(tools.length).toBeGreaterThan(0);
    expect(choice).toMatchObject({ type: "allowed_tools" });
    expect(params.tools).toHaveLength(current.availableTools().length);
  });

  it("tool calls of the SDK go in, tool messages come out", async () => {
    const calls: OpenAI.Chat.Completions.ChatCompletionMessageToolCall[] = [
      { id: "call_1", type: "function", function: { name: "echo", arguments: '{"text":"hi"}' } },
    ];
    const history: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = await runOpenAIChatToolCalls(run(), calls);
    expectTypeOf<OpenAI.Chat.Completions.ChatCompletionMessageToolCall>().toExtend<OpenAIChatToolCall>();
    expect(history).toEqual([{ role: "tool", tool_call_id: "call_1", content: "hi" }]);
  });
});

describe("OpenAI SDK types: Responses", () => {
  it("tools and tool_choice are what responses.create() takes", () => {
    const current = run();
    const native: OpenAI.Responses.Tool[] = openAIResponsesTools(current, { nativeToolSearch: true, strict: true });
    const plain: OpenAI.Responses.Tool[] = openAIResponsesTools(current);
    const params: OpenAI.Responses.ResponseCreateParamsNonStreaming = {
      model: "gpt-5.4",
      input: "hi",
      ...openAIResponsesRequest(current, { allowedToolsChoice: true }),
    };
    expectTypeOf<OpenAIResponsesAllowedToolsChoice>().toExtend<OpenAI.Responses.ToolChoiceAllowed>();
    expect(native[0]).toEqual({ type: "tool_search" });
    expect(plain.length).toBeGreaterThan(0);
    expect(params.tool_choice).toMatchObject({ type: "allowed_tools", mode: "auto" });
  });

  it("output items of the SDK go in, input items come out", async () => {
    const output: OpenAI.Responses.ResponseOutputItem[] = [
      { type: "function_call", call_id: "call_1", name: "echo", arguments: '{"text":"hi"}', id: "fc_1", status: "completed" },
    ];
    const items: OpenAI.Responses.ResponseInputItem[] = await runOpenAIResponsesFunctionCalls(run(), output);
    expectTypeOf<OpenAI.Responses.ResponseOutputItem>().toExtend<OpenAIResponseItem>();
    expect(items).toEqual([{ type: "function_call_output", call_id: "call_1", output: "hi" }]);
  });
});
