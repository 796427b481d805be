/**
 * Red team round 14: the Messages API caps an image at 5 MB of base64 (5,242,880 characters:
 * "image exceeds 5 MB maximum: 6291456 bytes > 5242880 bytes"), not 5 MiB of decoded bytes. The
 * Anthropic adapter counted decoded bytes against its 5 MiB default, so a screenshot of 4.5 MiB
 * (6 MiB as base64) was sent as an image block: the API refused the request, and since the result
 * stays in the conversation, every later request of it too.
 */
import type Anthropic from "@anthropic-ai/sdk";
import { createRegistry, defineTool, toolContent } from "agent-tool-catalog";
import { runAnthropicToolUses } from "agent-tool-catalog/anthropic";
import { runOpenAIResponsesFunctionCalls } from "agent-tool-catalog/openai";
import type OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { z } from "zod";

const ANTHROPIC_IMAGE_LIMIT = 5 * 1024 * 1024;

function runWithImage(decodedBytes: number) {
  const data = "A".repeat(Math.ceil(decodedBytes / 3) * 4);
  const registry = createRegistry({
    tools: [
      defineTool({
        name: "screenshot",
        description: "Take a screenshot.",
        inputSchema: z.object({}),
        handler: () =>
          toolContent([
            { type: "text", text: "The page:" },
            { type: "image", data, mediaType: "image/png" },
          ]),
      }),
    ],
  });
  return { run: registry.createRun({ maxBinaryBytes: 20 * 1024 * 1024 }), data };
}

const toolUse = [{ type: "tool_use", id: "toolu_1", name: "screenshot", input: {} }] as const;

describe("Anthropic: an image over 5 MB of base64", () => {
  it("becomes a text line instead of an image block the API refuses", async () => {
    const { run, data } = runWithImage(4.5 * 1024 * 1024);
    expect(data.length).toBeGreaterThan(ANTHROPIC_IMAGE_LIMIT);
    const [result] = await runAnthropicToolUses(run, [...toolUse]);
    const blocks = result?.content as Anthropic.Messages.ToolResultBlockParam["content"];
    const images = Array.isArray(blocks) ? blocks.filter((block) => block.type === "image") : [];
    expect(images).toEqual([]);
    expect(JSON.stringify(result?.content)).toMatch(
      /\[image omitted: image\/png, 4\.5 MiB; over the 5,242,880 characters of base64 Anthropic takes per image\]/,
    );
  });

  it("positive controls: an image under 5 MB of base64 is sent; OpenAI (no such cap) sends the large one", async () => {
    const small = runWithImage(3.5 * 1024 * 1024);
    expect(small.data.length).toBeLessThanOrEqual(ANTHROPIC_IMAGE_LIMIT);
    const [result] = await runAnthropicToolUses(small.run, [...toolUse]);
    const blocks = result?.content as Anthropic.Messages.ToolResultBlockParam["content"];
    expect(Array.isArray(blocks) && blocks.map((block) => block.type)).toEqual(["text", "image"]);
    const large = runWithImage(4.5 * 1024 * 1024);
    const call: OpenAI.Responses.ResponseFunctionToolCall = {
      type: "function_call",
      call_id: "call_1",
      name: "screenshot",
      arguments: "{}",
    };
    const output = await runOpenAIResponsesFunctionCalls(large.run, [call]);
    expect(JSON.stringify(output)).toContain('"type":"input_image"');
  });
});
