// Type-level checks against `@anthropic-ai/sdk`: `tsc` (in `npm test`) fails when an adapter shape
// stops matching the SDK's, in either direction (what we send, what we accept).
import type Anthropic from "@anthropic-ai/sdk";
import { createRegistry, defineTool } from "agent-tool-catalog";
import {
  type AnthropicClientMessage,
  type AnthropicContentBlock,
  type AnthropicMessagesClient,
  type AnthropicMessagesResponse,
  type AnthropicToolResultBlock,
  type AnthropicToolSearchTool,
  anthropicTools,
  runAnthropicToolUses,
} from "agent-tool-catalog/anthropic";
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
        inputSchema: { type: "object", properties: { n: { type: "number" } }, required: ["n"] },
        handler: () => "later",
      }),
    ],
  });
  return registry.createRun();
}

describe("Anthropic SDK types", () => {
  it("tool definitions are Messages API tools, on both paths", () => {
    const current = run();
    const findToolPath: Anthropic.Messages.ToolUnion[] = anthropicTools(current);
    const nativeSearch: Anthropic.Messages.ToolUnion[] = anthropicTools(current, { nativeToolSearch: "bm25" });
    const params: Anthropic.Messages.MessageCreateParamsNonStreaming = {
      model: "claude-sonnet-4-5",
      max_tokens: 1024,
      messages: [{ role: "user", content: "hi" }],
      tools: anthropicTools(current, { nativeToolSearch: "regex" }),
    };
    expectTypeOf<AnthropicToolSearchTool>().toExtend<
      Anthropic.Messages.ToolSearchToolBm25_20251119 | Anthropic.Messages.ToolSearchToolRegex20251119
    >();
    expect(findToolPath.length).toBeGreaterThan(0);
    expect(nativeSearch[0]).toEqual({ type: "tool_search_tool_bm25_20251119", name: "tool_search_tool_bm25" });
    expect(params.tools?.[0]).toEqual({ type: "tool_search_tool_regex_20251119", name: "tool_search_tool_regex" });
  });

  it("tool results are tool_result block params of a user message", async () => {
    const content: Anthropic.Messages.ContentBlock[] = [
      { type: "text", text: "Echoing.", citations: null },
      { type: "tool_use", id: "toolu_1", name: "echo", input: { text: "hi" }, caller: { type: "direct" } },
    ];
    const results: Anthropic.Messages.ToolResultBlockParam[] = await runAnthropicToolUses(run(), content);
    const next: Anthropic.Messages.MessageParam[] = [
      { role: "assistant", content },
      { role: "user", content: results },
    ];
    expectTypeOf<AnthropicToolResultBlock>().toExtend<Anthropic.Messages.ToolResultBlockParam>();
    expect(next[1]?.content).toEqual([{ type: "tool_result", tool_use_id: "toolu_1", content: "hi" }]);
  });

  it("responses and clients of the SDK are what the adapter accepts", () => {
    expectTypeOf<Anthropic.Messages.ContentBlock>().toExtend<AnthropicContentBlock>();
    expectTypeOf<Anthropic.Messages.Message>().toExtend<AnthropicMessagesResponse>();
    expectTypeOf<Anthropic>().toExtend<AnthropicMessagesClient>();
    expectTypeOf<AnthropicClientMessage<Anthropic>>().toEqualTypeOf<Anthropic.Messages.MessageParam>();
  });
});
