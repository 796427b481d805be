import type { LanguageModelV3CallOptions, LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { createRegistry, defineTool, type Registry } from "agent-tool-catalog";
import { createAiSdkTools } from "agent-tool-catalog/ai-sdk";
import { generateText, stepCountIs, streamText } from "ai";
import { convertArrayToReadableStream, MockLanguageModelV3 } from "ai/test";
import { describe, expect, it } from "vitest";
import { z } from "zod";

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 5, text: 5, reasoning: 0 },
};

/** The `ms` of every wait the handler stopped because its signal was aborted. */
const abortedWaits: number[] = [];

function registry(): Registry {
  return createRegistry({
    tools: [
      defineTool({
        name: "wait",
        description: "Wait some milliseconds.",
        inputSchema: z.object({ ms: z.number() }),
        handler: ({ ms }, context) =>
          new Promise<string>((resolve, reject) => {
            const timer = setTimeout(() => resolve(`waited ${ms}`), ms);
            context.signal.addEventListener("abort", () => {
              clearTimeout(timer);
              abortedWaits.push(ms);
              reject(context.signal.reason);
            });
          }),
      }),
      defineTool({
        name: "weather_forecast",
        description: "Weather forecast for a city.",
        tier: "deferred",
        inputSchema: z.object({ city: z.string() }),
        handler: ({ city }) => ({ city, sky: "sunny" }),
      }),
      defineTool({
        name: "broken",
        description: "Always throws.",
        inputSchema: z.object({}),
        handler: () => {
          throw new Error("kaput");
        },
      }),
    ],
  });
}

const finish = (unified: "tool-calls" | "stop"): LanguageModelV3StreamPart => ({
  type: "finish",
  finishReason: { unified, raw: undefined },
  usage,
});
const call = (id: string, name: string, input: string): LanguageModelV3StreamPart => ({
  type: "tool-call",
  toolCallId: id,
  toolName: name,
  input,
});

describe("AI SDK adapter with streamText", () => {
  it("runs parallel tool calls of one streamed step, each answered with its own result; find_tool activates for the next step", async () => {
    const run = registry().createRun();
    const { tools, prepareStep } = createAiSdkTools(run);
    const seen: LanguageModelV3CallOptions[] = [];
    const steps: LanguageModelV3StreamPart[][] = [
      [
        { type: "stream-start", warnings: [] },
        call("a", "wait", '{"ms":30}'),
        call("b", "find_tool", '{"query":"select:weather_forecast"}'),
        call("c", "broken", "{}"),
        finish("tool-calls"),
      ],
      [{ type: "stream-start", warnings: [] }, call("d", "weather_forecast", '{"city":"Lisbon"}'), finish("tool-calls")],
      [
        { type: "stream-start", warnings: [] },
        { type: "text-start", id: "t" },
        { type: "text-delta", id: "t", delta: "Sunny." },
        { type: "text-end", id: "t" },
        finish("stop"),
      ],
    ];
    const model = new MockLanguageModelV3({
      doStream: async (options) => {
        seen.push(options);
        return { stream: convertArrayToReadableStream(steps[seen.length - 1] ?? []) };
      },
    });
    const result = streamText({ model, tools, prepareStep, stopWhen: stepCountIs(5), prompt: "Weather in Lisbon?" });
    const parts: { type: string; toolCallId?: string }[] = [];
    for await (const part of result.fullStream) parts.push(part);
    expect(await result.text).toBe("Sunny.");
    // Every call of the parallel step has exactly one result, and no stream error part: failures are results.
    const results = parts.filter((part) => part.type === "tool-result").map((part) => part.toolCallId);
    expect(results.sort()).toEqual(["a", "b", "c", "d"]);
    expect(parts.some((part) => part.type === "error" || part.type === "tool-error")).toBe(false);
    expect((seen[0]?.tools ?? []).map((tool) => tool.name)).not.toContain("weather_forecast");
    expect((seen[1]?.tools ?? []).map((tool) => tool.name)).toContain("weather_forecast");
    // The model got the failure as error-json with the run's code, and the forecast as JSON.
    const toolMessages = JSON.stringify(seen[2]?.prompt.filter((message) => message.role === "tool"));
    expect(toolMessages).toContain('"type":"error-json"');
    expect(toolMessages).toContain("tool_failed");
    expect(toolMessages).toContain('"sky":"sunny"');
  });

  it("passes generateText's abortSignal to the handler: the loop rejects with the abort, the handler stops", async () => {
    const run = registry().createRun();
    const { tools, prepareStep } = createAiSdkTools(run);
    const controller = new AbortController();
    let calls = 0;
    const model = new MockLanguageModelV3({
      doGenerate: async () => {
        calls++;
        return {
          content: [{ type: "tool-call", toolCallId: "a", toolName: "wait", input: '{"ms":10000}' }],
          finishReason: { unified: "tool-calls", raw: undefined },
          usage,
          warnings: [],
        };
      },
    });
    const started = Date.now();
    setTimeout(() => controller.abort(), 100);
    await expect(
      generateText({ model, tools, prepareStep, stopWhen: stepCountIs(3), prompt: "wait", abortSignal: controller.signal }),
    ).rejects.toThrow(/abort/i);
    expect(calls).toBe(1);
    // Before the tool's 10 s wait would have ended (the poll below shows it was aborted); 5 s left a
    // loaded machine (load 20 on 2 cores) too little.
    expect(Date.now() - started).toBeLessThan(8_000);
    await expect.poll(() => abortedWaits).toContain(10000);
  });
});
