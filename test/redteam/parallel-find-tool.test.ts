/**
 * Two find_tool calls in one step (the AI SDK runs a step's calls in parallel): each must report
 * only what it activated, and each `tool.activated` event must name the call that made it
 * (`callId`), so that a listener (the OpenTelemetry instrumentation) does not give both calls both
 * activations. The host's own activations carry no `callId`.
 */
import type { LanguageModelV3CallOptions, LanguageModelV3Content, LanguageModelV3GenerateResult } from "@ai-sdk/provider";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { createRegistry, defineTool, type ToolActivatedEvent } from "agent-tool-catalog";
import { createAiSdkTools } from "agent-tool-catalog/ai-sdk";
import { instrumentRegistry } from "agent-tool-catalog/otel";
import { generateText, stepCountIs } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 5, text: 5, reasoning: 0 },
};

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A registry of two deferred tools whose find_tool searches take a turn of the event loop. */
function catalog() {
  const registry = createRegistry({
    tools: [
      defineTool({
        name: "weather_forecast",
        description: "Get the weather forecast for a city.",
        tier: "deferred",
        inputSchema: z.object({}),
        handler: () => "sunny",
      }),
      defineTool({
        name: "stock_quote",
        description: "Get a stock quote for a ticker symbol.",
        tier: "deferred",
        inputSchema: z.object({}),
        handler: () => "up",
      }),
    ],
  });
  cleanups.push(() => registry.close());
  const activations: ToolActivatedEvent[] = [];
  registry.events.on("tool.activated", (event) => activations.push(event));
  return { registry, activations };
}

const names = (result: unknown) => ((result as { activated: { name: string }[] }).activated ?? []).map((tool) => tool.name);

describe("parallel find_tool calls", () => {
  it("run.call: each result and event belongs to its own call; the host's activation has no callId", async () => {
    const { registry, activations } = catalog();
    const run = registry.createRun();
    const [weather, stock] = await Promise.all([
      run.call("find_tool", { query: "weather forecast city" }, { callId: "call-weather" }),
      run.call("find_tool", { query: "stock quote ticker" }, { callId: "call-stock" }),
    ]);
    if (!weather.ok || !stock.ok) throw new Error("expected both calls to succeed");
    expect(names(weather.output)).toEqual(["weather_forecast"]);
    expect(names(stock.output)).toEqual(["stock_quote"]);
    expect(
      activations.map(({ name, via, callId }) => ({ name, via, callId })).sort((a, b) => a.name.localeCompare(b.name)),
    ).toEqual([
      { name: "stock_quote", via: "find_tool", callId: "call-stock" },
      { name: "weather_forecast", via: "find_tool", callId: "call-weather" },
    ]);
    const other = registry.createRun();
    other.activate(["stock_quote"]);
    expect(activations.at(-1)).toMatchObject({ name: "stock_quote", via: "api" });
    expect(activations.at(-1)?.callId).toBeUndefined();
  });

  it("generateText with two find_tool calls in one step: each result, event and span is its own", async () => {
    const { registry, activations } = catalog();
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    cleanups.push(() => provider.shutdown());
    cleanups.push(instrumentRegistry(registry, { tracer: provider.getTracer("test") }));
    const run = registry.createRun();
    const tools = createAiSdkTools(run);
    const call = (id: string, query: string): LanguageModelV3Content => ({
      type: "tool-call",
      toolCallId: id,
      toolName: "find_tool",
      input: JSON.stringify({ query }),
    });
    const seen: LanguageModelV3CallOptions[] = [];
    const model = new MockLanguageModelV3({
      doGenerate: async (options): Promise<LanguageModelV3GenerateResult> => {
        seen.push(options);
        const content: LanguageModelV3Content[] =
          seen.length === 1
            ? [call("w", "weather forecast city"), call("s", "stock quote ticker")]
            : [{ type: "text", text: "done" }];
        const calls = content.some((part) => part.type === "tool-call");
        return { content, finishReason: { unified: calls ? "tool-calls" : "stop", raw: undefined }, usage, warnings: [] };
      },
    });
    await generateText({ model, tools: tools.tools, prepareStep: tools.prepareStep, stopWhen: stepCountIs(3), prompt: "go" });

    const results = new Map<string, unknown>();
    for (const message of seen[1]?.prompt ?? []) {
      if (message.role !== "tool") continue;
      for (const part of message.content) if (part.type === "tool-result") results.set(part.toolCallId, part.output);
    }
    const activatedBy = (id: string) => names((results.get(id) as { value: unknown }).value);
    expect(activatedBy("w")).toEqual(["weather_forecast"]);
    expect(activatedBy("s")).toEqual(["stock_quote"]);
    expect(Object.fromEntries(activations.map((event) => [event.name, event.callId]))).toEqual({
      weather_forecast: "w",
      stock_quote: "s",
    });
    // Positive control: both tools are offered to the model in the next step.
    expect(seen[1]?.tools?.map((tool) => tool.name)).toEqual(expect.arrayContaining(["weather_forecast", "stock_quote"]));

    const spanEvents = exporter
      .getFinishedSpans()
      .filter((span) => span.name === "execute_tool find_tool")
      .map((span) => span.events.map((event) => event.attributes?.["gen_ai.tool.name"]));
    expect(spanEvents.sort()).toEqual([["stock_quote"], ["weather_forecast"]]);
  });
});
