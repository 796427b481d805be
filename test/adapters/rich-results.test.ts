// Rich results (`toolContent`) through every adapter, typed against the providers' own SDK types:
// a drift of a wire shape fails `tsc`; the values are checked here.

import type Anthropic from "@anthropic-ai/sdk";
import { createAiSdkTools } from "agent-tool-catalog/ai-sdk";
import { runAnthropicToolUses } from "agent-tool-catalog/anthropic";
import { runOpenAIChatToolCalls, runOpenAIResponsesFunctionCalls } from "agent-tool-catalog/openai";
import { generateText, stepCountIs } from "ai";
import type OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { PDF, PNG, plainRun, toolCallThenDoneModel } from "./adapter-fixtures.js";

const TIFF_LINE = /^\[image omitted: image\/tiff, 1 KiB; (Anthropic|OpenAI) takes no image\/tiff in tool results\]$/;

describe("Anthropic: tool_result content blocks", () => {
  const toolUse = [{ type: "tool_use", id: "toolu_1", name: "screenshot", input: {}, caller: { type: "direct" } }] as const;

  it("sends images as image blocks, PDFs as document blocks, text files as text documents, refused types as text", async () => {
    const results: Anthropic.Messages.ToolResultBlockParam[] = await runAnthropicToolUses(plainRun(), [...toolUse]);
    const message: Anthropic.Messages.MessageParam = { role: "user", content: results };
    expect(message.content).toHaveLength(1);
    const content = results[0]?.content;
    expect(Array.isArray(content)).toBe(true);
    expect(content).toEqual([
      { type: "text", text: "The page:" },
      { type: "image", source: { type: "base64", media_type: "image/png", data: PNG } },
      { type: "document", source: { type: "base64", media_type: "application/pdf", data: PDF }, title: "page.pdf" },
      { type: "text", text: expect.stringMatching(TIFF_LINE) },
      { type: "document", source: { type: "text", media_type: "text/plain", data: "hello\n" }, title: "notes.txt" },
    ]);
    expect(results[0]?.is_error).toBeUndefined();
  });

  it("falls back to text for a model without images, and caps the bytes a result sends", async () => {
    const [textOnly] = await runAnthropicToolUses(plainRun(), [...toolUse], { media: false });
    expect(typeof textOnly?.content).toBe("string");
    expect(textOnly?.content).toContain("[image omitted: image/png, 1 KiB; this model takes no images or files]");
    expect(textOnly?.content).toContain("[file omitted: application/pdf, 1 KiB, page.pdf; this model takes no images or files]");
    expect(textOnly?.content).toContain("notes.txt:\nhello");
    const [capped] = await runAnthropicToolUses(plainRun(), [...toolUse], { maxMediaBytes: 60 });
    const blocks = capped?.content as Anthropic.Messages.ToolResultBlockParam["content"];
    // The PNG (70 bytes) is over 60: it becomes a line; the 9-byte PDF still fits.
    expect(Array.isArray(blocks) && blocks.map((block) => block.type)).toEqual(["text", "text", "document", "text", "document"]);
    expect(JSON.stringify(blocks)).toContain("[image omitted: image/png, 1 KiB; over the 1 KiB a result may send]");
  });
});

const SCREENSHOT_CALL: OpenAI.Responses.ResponseFunctionToolCall = {
  type: "function_call",
  call_id: "call_1",
  name: "screenshot",
  arguments: "{}",
};

describe("OpenAI Responses: function_call_output content", () => {
  it("sends input_text, input_image (data URL) and input_file (PDF), refused types as text", async () => {
    const output: OpenAI.Responses.ResponseInputItem[] = await runOpenAIResponsesFunctionCalls(plainRun(), [SCREENSHOT_CALL]);
    expect(output).toEqual([
      {
        type: "function_call_output",
        call_id: "call_1",
        output: [
          { type: "input_text", text: "The page:" },
          { type: "input_image", image_url: `data:image/png;base64,${PNG}`, detail: "auto" },
          { type: "input_file", file_data: `data:application/pdf;base64,${PDF}`, filename: "page.pdf" },
          { type: "input_text", text: expect.stringMatching(TIFF_LINE) },
          { type: "input_text", text: "notes.txt:\nhello\n" },
        ],
      },
    ]);
  });

  it("sends a plain string for a model without images", async () => {
    const [item] = await runOpenAIResponsesFunctionCalls(plainRun(), [SCREENSHOT_CALL], { media: false });
    expect(typeof item?.output).toBe("string");
    expect(item?.output).toContain("[image omitted: image/png");
  });
});

describe("OpenAI Chat: images in a user message after the tool messages", () => {
  it("answers each call with a text tool message and sends the batch's media once, after them", async () => {
    const messages: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = await runOpenAIChatToolCalls(plainRun(), [
      { id: "call_1", type: "function", function: { name: "screenshot", arguments: "{}" } },
      { id: "call_2", type: "function", function: { name: "echo", arguments: '{"text":"hi"}' } },
    ]);
    expect(messages.map((message) => message.role)).toEqual(["tool", "tool", "user"]);
    expect(messages[0]?.content).toContain("[image 1: image/png; in the next user message]");
    expect(messages[0]?.content).toContain("[file 2: application/pdf; in the next user message]");
    expect(messages[1]).toEqual({ role: "tool", tool_call_id: "call_2", content: "hi" });
    expect(messages[2]?.content).toEqual([
      { type: "text", text: "The images and files of tool call call_1 (screenshot), in order:" },
      { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } },
      { type: "file", file: { file_data: `data:application/pdf;base64,${PDF}`, filename: "page.pdf" } },
    ]);
  });

  it("sends no user message for a model without images", async () => {
    const messages = await runOpenAIChatToolCalls(
      plainRun(),
      [{ id: "call_1", type: "function", function: { name: "screenshot", arguments: "{}" } }],
      { media: false },
    );
    expect(messages.map((message) => message.role)).toEqual(["tool"]);
  });
});

describe("AI SDK: toModelOutput content", () => {
  it("sends image-data and file-data parts to the model, and keeps them in result.steps", async () => {
    const { model, seen } = toolCallThenDoneModel("screenshot", "{}");
    const { tools, prepareStep } = createAiSdkTools(plainRun());
    const result = await generateText({ model, tools, prepareStep, stopWhen: stepCountIs(3), prompt: "Look." });
    const toolMessage = seen[1]?.prompt.find((message) => message.role === "tool");
    const part = toolMessage?.role === "tool" ? toolMessage.content[0] : undefined;
    expect(part?.type === "tool-result" && part.output).toEqual({
      type: "content",
      value: [
        { type: "text", text: "The page:" },
        { type: "image-data", data: PNG, mediaType: "image/png" },
        { type: "file-data", data: PDF, mediaType: "application/pdf", filename: "page.pdf" },
        { type: "image-data", data: expect.any(String), mediaType: "image/tiff" },
        { type: "file-data", data: expect.any(String), mediaType: "text/plain", filename: "notes.txt" },
      ],
    });
    expect(result.steps[0]?.toolResults[0]?.output).toMatchObject({
      type: "tool-content",
      output: expect.stringContaining("The page:"),
    });
  });
});
