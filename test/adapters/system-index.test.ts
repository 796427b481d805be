// Every adapter carries the run's index (`run.systemPromptIndex()`) into the request by itself:
// without it the model never learns the tools a listing run names (reached through `toolbox`).

import type Anthropic from "@anthropic-ai/sdk";
import { createAiSdkTools } from "agent-tool-catalog/ai-sdk";
import { type AnthropicMessagesRequest, anthropicSystem, anthropicToolLoop } from "agent-tool-catalog/anthropic";
import { openAIChatRequest, openAIChatSystemMessage, openAIResponsesRequest } from "agent-tool-catalog/openai";
import { generateText, stepCountIs } from "ai";
import type OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { listingRun, plainRun, toolCallThenDoneModel } from "./adapter-fixtures.js";

const ROW = "- note_archive: Archive old notes.";

describe("the run's index reaches the model", () => {
  it("the fixture is a listing run (and the plain run has no index)", () => {
    expect(listingRun().systemPromptIndex()).toContain(ROW);
    expect(plainRun().systemPromptIndex()).toBeUndefined();
  });

  it("Anthropic: anthropicToolLoop sends system = host prompt + index; block prompts get one more block", async () => {
    const requests: AnthropicMessagesRequest[] = [];
    const client = {
      messages: {
        create: async (params: AnthropicMessagesRequest) => {
          requests.push(params);
          return { content: [{ type: "text", text: "ok" }], stop_reason: "end_turn" };
        },
      },
    };
    await anthropicToolLoop(listingRun(), {
      client,
      model: "m",
      system: "Be brief.",
      messages: [{ role: "user", content: "hi" }],
    });
    expect(requests[0]?.system).toMatch(/^Be brief\.\n\n# Additional tools\n/);
    expect(requests[0]?.system).toContain(ROW);
    await anthropicToolLoop(listingRun(), { client, model: "m", messages: [{ role: "user", content: "hi" }] });
    expect(requests[1]?.system).toMatch(/^# Additional tools/);
    await anthropicToolLoop(plainRun(), { client, model: "m", messages: [{ role: "user", content: "hi" }] });
    expect(requests[2]).not.toHaveProperty("system");
    const blocks: Anthropic.Messages.MessageCreateParams["system"] = anthropicSystem(listingRun(), [
      { type: "text", text: "Be brief." },
    ]);
    expect(blocks).toEqual([
      { type: "text", text: "Be brief." },
      { type: "text", text: expect.stringContaining(ROW) },
    ]);
  });

  it("OpenAI Responses: instructions = host instructions + index", () => {
    const request = openAIResponsesRequest(listingRun(), { instructions: "Be brief." });
    const params: OpenAI.Responses.ResponseCreateParamsNonStreaming = { model: "gpt-5", input: "hi", ...request };
    expect(params.instructions).toMatch(/^Be brief\.\n\n# Additional tools\n/);
    expect(openAIResponsesRequest(listingRun()).instructions).toContain(ROW);
    expect(openAIResponsesRequest(plainRun())).not.toHaveProperty("instructions");
  });

  it("OpenAI Chat: the conversation comes back with the index in its system message", () => {
    const conversation: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [
      { role: "developer", content: "Be brief." },
      { role: "user", content: "hi" },
    ];
    const request = openAIChatRequest(listingRun(), { messages: conversation });
    const params: OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming = { model: "gpt-4.1", ...request };
    expect(params.messages[0]).toEqual({
      role: "developer",
      content: expect.stringMatching(/^Be brief\.\n\n# Additional tools\n/),
    });
    expect(params.messages).toHaveLength(2);
    expect(conversation[0]?.content).toBe("Be brief.");
    const bare = openAIChatRequest(listingRun(), { messages: [{ role: "user" as const, content: "hi" }] });
    expect(bare.messages[0]).toEqual({ role: "system", content: expect.stringContaining(ROW) });
    expect(openAIChatRequest(plainRun(), { messages: conversation }).messages).toEqual(conversation);
    expect(openAIChatSystemMessage(listingRun(), "Be brief.")?.content).toContain(ROW);
    expect(openAIChatSystemMessage(plainRun())).toBeUndefined();
  });

  it("AI SDK: prepareStep puts the index after the host's system prompt, on every step", async () => {
    const { model, seen } = toolCallThenDoneModel("echo", '{"text":"x"}');
    const { tools, prepareStep } = createAiSdkTools(listingRun());
    const result = await generateText({ model, tools, prepareStep, system: "Be brief.", stopWhen: stepCountIs(3), prompt: "hi" });
    for (const options of seen) {
      expect(options.prompt.slice(0, 2)).toEqual([
        { role: "system", content: "Be brief." },
        { role: "system", content: expect.stringContaining(ROW) },
      ]);
    }
    expect(seen).toHaveLength(2);
    // The index is sent, not kept: the response messages are the assistant's and the tools' only.
    expect(result.response.messages.map((message) => message.role)).toEqual(["assistant", "tool", "assistant"]);
  });
});
