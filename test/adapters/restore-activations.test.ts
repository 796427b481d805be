// A host that saved only the provider messages rebuilds the run: the same tools, in the same order.
import { createRegistry, defineTool, type Registry, type Run } from "agent-tool-catalog";
import { createAiSdkTools, restoreAiSdkActivations } from "agent-tool-catalog/ai-sdk";
import { restoreAnthropicActivations, runAnthropicToolUses } from "agent-tool-catalog/anthropic";
import {
  restoreOpenAIChatActivations,
  restoreOpenAIResponsesActivations,
  runOpenAIChatToolCalls,
  runOpenAIResponsesFunctionCalls,
} from "agent-tool-catalog/openai";
import type { ModelMessage } from "ai";
import { describe, expect, it } from "vitest";
import { z } from "zod";

function registry(): Registry {
  const deferred = (name: string, description: string) =>
    defineTool({ name, description, tier: "deferred", inputSchema: z.object({}), handler: () => name });
  return createRegistry({
    tools: [
      defineTool({ name: "read_note", description: "Read a note.", inputSchema: z.object({}), handler: () => "note" }),
      deferred("weather_forecast", "Get the weather forecast for a city."),
      deferred("currency_convert", "Convert an amount between currencies."),
      deferred("flight_status", "Get the status of a flight."),
    ],
  });
}
const names = (run: Run) => run.definitions().map((tool) => tool.name);
const EXPECTED = ["find_tool", "read_note", "currency_convert", "weather_forecast", "flight_status"];

describe("rebuilding activations from a transcript", () => {
  it("Anthropic: find_tool results and tool_reference blocks", async () => {
    const shared = registry();
    const original = shared.createRun();
    const turn1 = [
      { type: "tool_use", id: "t1", name: "find_tool", input: { query: "select:currency_convert,weather_forecast" } },
    ];
    const turn2 = [
      { type: "server_tool_use", id: "s1", name: "tool_search_tool_bm25", input: { query: "flight" } },
      {
        type: "tool_search_tool_result",
        tool_use_id: "s1",
        content: {
          type: "tool_search_tool_search_result",
          tool_references: [{ type: "tool_reference", tool_name: "flight_status" }],
        },
      },
    ];
    const messages = [
      { role: "user", content: "Plan my trip." },
      { role: "assistant", content: turn1 },
      { role: "user", content: await runAnthropicToolUses(original, turn1) },
      { role: "assistant", content: turn2 },
    ];
    await runAnthropicToolUses(original, turn2);
    expect(names(original)).toEqual(EXPECTED);
    const restored = shared.createRun();
    expect(restoreAnthropicActivations(restored, JSON.parse(JSON.stringify(messages)))).toEqual([
      "currency_convert",
      "weather_forecast",
      "flight_status",
    ]);
    expect(names(restored)).toEqual(names(original));
  });

  it("OpenAI Responses: find_tool outputs and tool_search_output items", async () => {
    const shared = registry();
    const original = shared.createRun();
    const call = {
      type: "function_call",
      call_id: "c1",
      name: "find_tool",
      arguments: '{"query":"select:currency_convert,weather_forecast"}',
    };
    const search = { type: "tool_search_output", tools: [{ type: "function", name: "flight_status" }] };
    const items = [call, ...(await runOpenAIResponsesFunctionCalls(original, [call])), search];
    await runOpenAIResponsesFunctionCalls(original, [search]);
    expect(names(original)).toEqual(EXPECTED);
    const restored = shared.createRun();
    restoreOpenAIResponsesActivations(restored, JSON.parse(JSON.stringify(items)));
    expect(names(restored)).toEqual(names(original));
  });

  it("OpenAI Chat: the tool messages of find_tool calls", async () => {
    const shared = registry();
    const original = shared.createRun();
    const calls = [
      {
        id: "c1",
        type: "function",
        function: { name: "find_tool", arguments: '{"query":"select:currency_convert,weather_forecast"}' },
      },
      { id: "c2", type: "function", function: { name: "find_tool", arguments: '{"query":"select:flight_status"}' } },
    ];
    const messages = [
      { role: "assistant", content: null, tool_calls: calls },
      ...(await runOpenAIChatToolCalls(original, calls)),
    ];
    expect(names(original)).toEqual(EXPECTED);
    const restored = shared.createRun();
    restoreOpenAIChatActivations(restored, JSON.parse(JSON.stringify(messages)));
    expect(names(restored)).toEqual(names(original));
  });

  it("AI SDK: find_tool tool-result parts, as toModelOutput wrote them", async () => {
    const shared = registry();
    const original = shared.createRun();
    const { tools } = createAiSdkTools(original);
    const messages: ModelMessage[] = [];
    for (const [id, query] of [
      ["c1", "select:currency_convert,weather_forecast"],
      ["c2", "select:flight_status"],
    ] as const) {
      const output = await tools.find_tool?.execute?.({ query }, { toolCallId: id, messages: [] });
      const modelOutput = await tools.find_tool?.toModelOutput?.({ toolCallId: id, input: { query }, output });
      messages.push(
        { role: "assistant", content: [{ type: "tool-call", toolCallId: id, toolName: "find_tool", input: { query } }] },
        { role: "tool", content: [{ type: "tool-result", toolCallId: id, toolName: "find_tool", output: modelOutput as never }] },
      );
    }
    expect(names(original)).toEqual(EXPECTED);
    const restored = shared.createRun();
    restoreAiSdkActivations(restored, JSON.parse(JSON.stringify(messages)));
    expect(names(restored)).toEqual(names(original));
  });

  it("a failed find_tool and foreign text activate nothing", () => {
    const restored = registry().createRun();
    const activated = restoreOpenAIChatActivations(restored, [
      { role: "assistant", tool_calls: [{ id: "c1", type: "function", function: { name: "find_tool", arguments: "{}" } }] },
      { role: "tool", tool_call_id: "c1", content: '{"error":{"code":"invalid_input"}}' },
      { role: "tool", tool_call_id: "other", content: '{"activated":[{"name":"weather_forecast"}]}' },
    ]);
    expect(activated).toEqual([]);
    expect(names(restored)).toEqual(["find_tool", "read_note"]);
  });
});
