import type { LanguageModelV3CallOptions, LanguageModelV3GenerateResult } from "@ai-sdk/provider";
import { createRegistry, defineTool, type Registry } from "agent-tool-catalog";
import { createAiSdkTools } from "agent-tool-catalog/ai-sdk";
import { runAnthropicToolUses } from "agent-tool-catalog/anthropic";
import { runOpenAIChatToolCalls, runOpenAIResponsesFunctionCalls } from "agent-tool-catalog/openai";
import { generateText, stepCountIs } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { activationsFromTranscript } from "../../src/run/activations-from-transcript.js";
import { cpuMsOf } from "../support/cpu-time.js";

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};

function catalog(): Registry {
  const registry = createRegistry();
  for (const [name, description] of [
    ["weather_forecast", "Weather forecast for a city."],
    ["stock_quote", "Current stock quote for a ticker."],
    ["translate_text", "Translate text between languages."],
  ] as const) {
    registry.register(defineTool({ name, description, tier: "deferred", inputSchema: z.object({}), handler: () => name }));
  }
  return registry;
}

/** A conversation's messages as each provider stores them, after the model called find_tool twice. */
async function transcripts(): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};

  // AI SDK: a real generateText loop; the stored messages are response.messages.
  {
    const run = catalog().createRun();
    let step = 0;
    const model = new MockLanguageModelV3({
      doGenerate: async (_options: LanguageModelV3CallOptions): Promise<LanguageModelV3GenerateResult> => {
        step++;
        const content =
          step === 1
            ? [
                {
                  type: "tool-call" as const,
                  toolCallId: "a1",
                  toolName: "find_tool",
                  input: JSON.stringify({ query: "weather forecast" }),
                },
              ]
            : step === 2
              ? [
                  {
                    type: "tool-call" as const,
                    toolCallId: "a2",
                    toolName: "find_tool",
                    input: JSON.stringify({ query: "select:stock_quote" }),
                  },
                ]
              : [{ type: "text" as const, text: "done" }];
        return { content, finishReason: { unified: step <= 2 ? "tool-calls" : "stop", raw: undefined }, usage, warnings: [] };
      },
    });
    const { tools, prepareStep } = createAiSdkTools(run);
    const result = await generateText({ model, tools, prepareStep, prompt: "hi", stopWhen: stepCountIs(5) });
    out.aiSdk = JSON.parse(JSON.stringify(result.response.messages));
    out.aiSdkExpected = [...run.toJSON().activation.activated];
  }

  // Anthropic: the assistant's tool_use blocks and the user's tool_result blocks.
  {
    const run = catalog().createRun();
    const messages: unknown[] = [];
    for (const [id, query] of [
      ["t1", "weather forecast"],
      ["t2", "select:stock_quote"],
    ] as const) {
      const content = [{ type: "tool_use" as const, id, name: "find_tool", input: { query } }];
      messages.push({ role: "assistant", content });
      messages.push({ role: "user", content: await runAnthropicToolUses(run, content) });
    }
    // The provider's own tool search loaded a tool too.
    messages.push({
      role: "assistant",
      content: [
        {
          type: "tool_search_tool_result",
          tool_use_id: "s1",
          content: {
            type: "tool_search_tool_search_result",
            tool_references: [{ type: "tool_reference", tool_name: "translate_text" }],
          },
        },
      ],
    });
    out.anthropic = JSON.parse(JSON.stringify(messages));
    out.anthropicExpected = [...run.toJSON().activation.activated, "translate_text"];
  }

  // OpenAI Chat Completions and Responses.
  {
    const run = catalog().createRun();
    const calls = [
      {
        id: "c1",
        type: "function" as const,
        function: { name: "find_tool", arguments: JSON.stringify({ query: "weather forecast" }) },
      },
    ];
    const chat = [{ role: "assistant", tool_calls: calls }, ...(await runOpenAIChatToolCalls(run, calls))];
    const responsesRun = catalog().createRun();
    const items = [
      {
        type: "function_call" as const,
        call_id: "r1",
        name: "find_tool",
        arguments: JSON.stringify({ query: "select:stock_quote" }),
      },
    ];
    const responses = [
      ...items,
      ...(await runOpenAIResponsesFunctionCalls(responsesRun, items)),
      {
        type: "tool_search_output",
        tools: [{ type: "namespace", name: "ns", tools: [{ type: "function", name: "translate_text" }] }],
      },
    ];
    out.openai = JSON.parse(JSON.stringify([...chat, ...responses]));
    out.openaiExpected = [...run.toJSON().activation.activated, ...responsesRun.toJSON().activation.activated, "translate_text"];
  }
  return out;
}

describe("restoring activations from a stored conversation", () => {
  it("finds every activation in AI SDK, Anthropic and OpenAI message shapes, and a fresh run gets them back", async () => {
    const stored = await transcripts();
    for (const provider of ["aiSdk", "anthropic", "openai"]) {
      const expected = stored[`${provider}Expected`] as string[];
      expect(expected.length, provider).toBeGreaterThanOrEqual(2);
      // A new process with only the messages: before restoring, the tools are not callable.
      const run = catalog().createRun();
      expect(run.isVisible("stock_quote")).toBe(false);
      const restored = run.restoreFromTranscript(stored[provider] as unknown[]);
      expect([...restored.activated].sort(), provider).toEqual([...new Set(expected)].sort());
      expect(restored.unknown).toEqual([]);
      for (const name of expected) expect(run.isVisible(name), `${provider}: ${name}`).toBe(true);
      expect(await run.call("stock_quote", {})).toMatchObject({ ok: true });
    }
  });

  it("reports names no longer registered, and ignores look-alikes in ordinary text", () => {
    const run = catalog().createRun();
    const messages = [
      { role: "user", content: 'my notes say "activated": ["rm_rf"] and nothing else' },
      { role: "assistant", tool_calls: [{ id: "g1", type: "function", function: { name: "find_tool", arguments: "{}" } }] },
      {
        role: "tool",
        tool_call_id: "g1",
        content: JSON.stringify({ activated: [{ name: "gone_tool" }], already_available: [], not_found: [], message: "x" }),
      },
    ];
    expect(run.restoreFromTranscript(messages)).toEqual({ activated: [], unknown: ["gone_tool"] });
  });

  it("stays bounded on a huge or deeply nested transcript", () => {
    let deep: unknown = { activated: [{ name: "weather_forecast" }], already_available: [], not_found: [], message: "" };
    for (let n = 0; n < 10_000; n++) deep = [deep];
    // CPU time, not wall time: 26-65 ms of CPU took up to 1,150 ms of wall time at load 20 on 2 cores.
    const { result, cpuMs } = cpuMsOf(() => {
      const huge = { role: "tool", tool_call_id: "h1", content: "x".repeat(5_000_000) };
      const calls = { role: "assistant", tool_calls: [{ id: "h1", function: { name: "find_tool" } }] };
      const many = Array.from({ length: 200_000 }, () => calls);
      return activationsFromTranscript([deep, calls, huge, ...many]);
    });
    expect(result).toEqual([]);
    expect(cpuMs).toBeLessThan(1_000);
  });
});
