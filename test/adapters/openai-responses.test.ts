import { readFileSync } from "node:fs";
import { ConfigurationError, createRegistry, defineTool, type Registry } from "agent-tool-catalog";
import {
  activateToolSearchOutput,
  type OpenAIResponseItem,
  openAIResponsesRequest,
  openAIResponsesTools,
  runOpenAIResponsesFunctionCalls,
} from "agent-tool-catalog/openai";
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { readNoteTool, weatherForecastTool } from "../support/note-tools.js";

function fixture(name: string): OpenAI.Responses.Response {
  return JSON.parse(
    readFileSync(new URL(`../fixtures/openai/${name}.json`, import.meta.url), "utf8"),
  ) as OpenAI.Responses.Response;
}

function catalog(): Registry {
  return createRegistry({
    tools: [
      readNoteTool(),
      weatherForecastTool(),
      defineTool({
        name: "flaky_lookup",
        description: "A lookup whose backend is down.",
        tier: "deferred",
        inputSchema: z.object({ key: z.string() }),
        handler: () => {
          throw new Error("backend unavailable");
        },
      }),
    ],
  });
}

const names = (tools: readonly { type: string; name?: string }[]) => tools.map((tool) => tool.name ?? `<${tool.type}>`);

describe("openAIResponsesTools", () => {
  it("sends the visible function tools with strict always set", () => {
    const run = catalog().createRun();
    const tools = openAIResponsesTools(run);
    expect(names(tools).sort()).toEqual(["find_tool", "read_note"]);
    expect(tools.every((tool) => tool.type === "function" && tool.strict === false)).toBe(true);
    const strict = openAIResponsesTools(run, { strict: true }).find(
      (tool) => tool.type === "function" && tool.name === "read_note",
    );
    expect(strict).toMatchObject({ strict: true, parameters: { additionalProperties: false } });
  });

  it("with native tool search, sends every tool, defers the deferred ones and replaces find_tool with tool_search", () => {
    const run = catalog().createRun();
    const tools = openAIResponsesTools(run, { nativeToolSearch: true });
    expect(tools[0]).toEqual({ type: "tool_search" });
    expect(names(tools)).toEqual(["<tool_search>", "read_note", "weather_forecast", "flaky_lookup"]);
    expect(tools.filter((tool) => "defer_loading" in tool).map((tool) => tool.type === "function" && tool.name)).toEqual([
      "weather_forecast",
      "flaky_lookup",
    ]);
  });
});

describe("activateToolSearchOutput", () => {
  it("activates the functions a tool_search_output loaded, also inside namespaces, and ignores unknown names", () => {
    const run = catalog().createRun();
    const output: OpenAIResponseItem[] = [
      { type: "tool_search_call" },
      {
        type: "tool_search_output",
        tools: [
          { type: "namespace", name: "lookups", tools: [{ type: "function", name: "flaky_lookup" }] },
          { type: "function", name: "not_ours" },
        ],
      } as OpenAIResponseItem,
    ];
    expect(activateToolSearchOutput(run, output)).toEqual(["flaky_lookup"]);
    expect(run.isVisible("flaky_lookup")).toBe(true);
  });
});

describe("a Responses tool loop with the real OpenAI client and hosted tool search", () => {
  it("activates the tool the search loaded, round-trips strict nulls, and keeps the tool list byte-identical", async () => {
    const run = catalog().createRun();
    const activations: string[] = [];
    run.events.on("tool.activated", ({ name, via }) => activations.push(`${name} via ${via}`));
    const bodies: OpenAI.Responses.ResponseCreateParamsNonStreaming[] = [];
    const responses = ["responses-turn-1-tool-search", "responses-turn-2-answer"].map(fixture);
    const client = new OpenAI({
      apiKey: "test-key",
      maxRetries: 0,
      fetch: async (_url, init) => {
        bodies.push(JSON.parse(String(init?.body)) as OpenAI.Responses.ResponseCreateParamsNonStreaming);
        const body = responses[bodies.length - 1];
        if (body === undefined) throw new Error("unexpected request");
        return new Response(JSON.stringify(body), { status: 200, headers: { "content-type": "application/json" } });
      },
    });
    const input: OpenAI.Responses.ResponseInputItem[] = [{ role: "user", content: "Weather in Lisbon?" }];
    let response: OpenAI.Responses.Response | undefined;
    for (let turn = 0; turn < 4; turn++) {
      response = await client.responses.create({
        model: "gpt-5.4",
        input,
        ...openAIResponsesRequest(run, { nativeToolSearch: true, strict: true }),
      });
      const outputs = await runOpenAIResponsesFunctionCalls(run, response.output);
      // The SDK types a few output items (e.g. program outputs) apart from input items; these round-trip as they are.
      input.push(...(response.output as OpenAI.Responses.ResponseInputItem[]), ...outputs);
      if (outputs.length === 0) break;
    }
    expect(bodies).toHaveLength(2);
    expect(activations).toEqual(["weather_forecast via openai_tool_search"]);
    expect(JSON.stringify(bodies[1]?.tools)).toBe(JSON.stringify(bodies[0]?.tools));
    expect(input).toContainEqual({
      type: "function_call_output",
      call_id: "call_Forecast8mN4bV2cX6",
      output: '{"city":"Lisbon","days":3,"sky":"sunny"}',
    });
    expect(response?.output_text).toContain("sunny");
  });

  it("answers a failing handler and a call of an inactive tool with the run's errors", async () => {
    const run = catalog().createRun();
    run.activate(["flaky_lookup"]);
    const outputs = await runOpenAIResponsesFunctionCalls(run, [
      { type: "function_call", call_id: "call_1", name: "flaky_lookup", arguments: '{"key":"k"}' },
      { type: "function_call", call_id: "call_2", name: "weather_forecast", arguments: '{"city":"Lisbon"}' },
      { type: "reasoning" },
    ] as OpenAIResponseItem[]);
    expect(outputs.map((output) => output.call_id)).toEqual(["call_1", "call_2"]);
    expect(outputs[0]?.output).toContain('"code":"tool_failed"');
    expect(outputs[0]?.output).toContain("backend unavailable");
    expect(outputs[1]?.output).toContain('"code":"tool_not_activated"');
  });
});

describe("openAIResponsesRequest with allowed_tools", () => {
  it("sends every tool in full on every turn and names the callable ones in tool_choice, in registry order", () => {
    const run = catalog().createRun();
    const first = openAIResponsesRequest(run, { allowedToolsChoice: true, strict: true });
    expect(names(first.tools ?? []).sort()).toEqual(["find_tool", "flaky_lookup", "read_note", "weather_forecast"]);
    expect(first.tools?.some((tool) => "defer_loading" in tool)).toBe(false);
    run.activate(["weather_forecast"]);
    const second = openAIResponsesRequest(run, { allowedToolsChoice: true, strict: true });
    expect(JSON.stringify(second.tools)).toBe(JSON.stringify(first.tools));
    expect(second.tool_choice).toEqual({
      type: "allowed_tools",
      mode: "auto",
      tools: [
        { type: "function", name: "find_tool" },
        { type: "function", name: "read_note" },
        { type: "function", name: "weather_forecast" },
      ],
    });
  });

  it("refuses allowedToolsChoice together with nativeToolSearch", () => {
    const run = catalog().createRun();
    expect(() => openAIResponsesRequest(run, { allowedToolsChoice: true, nativeToolSearch: true })).toThrow(ConfigurationError);
  });
});
