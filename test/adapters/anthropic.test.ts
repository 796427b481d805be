import { readFileSync } from "node:fs";
import Anthropic from "@anthropic-ai/sdk";
import { ConfigurationError, createRegistry, defineTool, type Registry, type Run } from "agent-tool-catalog";
import {
  type AnthropicMessagesRequest,
  type AnthropicMessagesResponse,
  activateToolReferences,
  anthropicToolLoop,
  anthropicTools,
  runAnthropicToolUses,
} from "agent-tool-catalog/anthropic";
import { describe, expect, it } from "vitest";
import { deferredDeleteNoteTool, readNoteTool, weatherForecastTool } from "../support/note-tools.js";

function fixture(name: string): Anthropic.Messages.Message {
  return JSON.parse(
    readFileSync(new URL(`../fixtures/anthropic/${name}.json`, import.meta.url), "utf8"),
  ) as Anthropic.Messages.Message;
}

function catalog(): { registry: Registry; deleted: string[] } {
  const deleted: string[] = [];
  const registry = createRegistry({
    tools: [
      readNoteTool(),
      deferredDeleteNoteTool(deleted),
      weatherForecastTool(["weather"]),
      defineTool({
        name: "currency_convert",
        description: "Convert an amount between two currencies.",
        tier: "deferred",
        inputSchema: {
          type: "object",
          properties: { amount: { type: "number" }, from: { type: "string" }, to: { type: "string" } },
          required: ["amount", "from", "to"],
        },
        handler: () => undefined,
      }),
    ],
  });
  return { registry, deleted };
}

const names = (tools: readonly { name: string }[]) => tools.map((tool) => tool.name);

/** A client that replays responses in order, records what it was sent, and fails on an extra request. */
function scriptedClient(responses: readonly AnthropicMessagesResponse[]) {
  const requests: AnthropicMessagesRequest[] = [];
  const client = {
    messages: {
      create: async (params: AnthropicMessagesRequest): Promise<AnthropicMessagesResponse> => {
        requests.push(JSON.parse(JSON.stringify(params)) as AnthropicMessagesRequest);
        const response = responses[requests.length - 1];
        if (response === undefined) throw new Error(`unexpected request ${requests.length}`);
        return response;
      },
    },
  };
  return { client, requests };
}

describe("anthropicTools", () => {
  it("sends the run's definitions on the find_tool path, and a new activation only at the end", () => {
    const run = catalog().registry.createRun();
    const first = anthropicTools(run);
    expect(names(first).sort()).toEqual(["find_tool", "read_note"]);
    expect(first.find((tool) => tool.name === "read_note")).toEqual({
      name: "read_note",
      description: "Read a note by its title.",
      input_schema: run.definitions().find((descriptor) => descriptor.name === "read_note")?.inputSchema,
    });
    run.activate(["weather_forecast"]);
    const second = anthropicTools(run);
    expect(names(second)).toEqual([...names(first), "weather_forecast"]);
    expect(JSON.stringify(second.slice(0, first.length))).toBe(JSON.stringify(first));
  });

  it("with native tool search, sends every tool, defers the inactive deferred ones and replaces find_tool", () => {
    const run = catalog().registry.createRun();
    const tools = anthropicTools(run, { nativeToolSearch: "bm25" });
    expect(tools[0]).toEqual({ type: "tool_search_tool_bm25_20251119", name: "tool_search_tool_bm25" });
    expect(names(tools)).not.toContain("find_tool");
    const deferred = tools.filter((tool) => "defer_loading" in tool).map((tool) => tool.name);
    expect(deferred).toEqual(["delete_note", "weather_forecast", "currency_convert"]);
    expect(anthropicTools(run, { nativeToolSearch: "regex" })[0]).toEqual({
      type: "tool_search_tool_regex_20251119",
      name: "tool_search_tool_regex",
    });
  });

  it("keeps the bytes of the tool list when the provider's search loads a tool, but sends a host activation in full", () => {
    const run = catalog().registry.createRun();
    const before = JSON.stringify(anthropicTools(run, { nativeToolSearch: "bm25" }));
    expect(activateToolReferences(run, fixture("tool-search-turn-1").content)).toEqual(["weather_forecast"]);
    expect(run.isVisible("weather_forecast")).toBe(true);
    expect(JSON.stringify(anthropicTools(run, { nativeToolSearch: "bm25" }))).toBe(before);
    run.activate(["currency_convert"]);
    const convert = anthropicTools(run, { nativeToolSearch: "bm25" }).find((tool) => tool.name === "currency_convert");
    expect(convert !== undefined && "defer_loading" in convert).toBe(false);
  });

  it("refuses an unknown tool search variant", () => {
    const run = catalog().registry.createRun();
    const options = JSON.parse('{"nativeToolSearch":"vector"}') as Parameters<typeof anthropicTools>[1];
    expect(() => anthropicTools(run, options)).toThrow(ConfigurationError);
  });
});

describe("runAnthropicToolUses", () => {
  it("answers two tool_use blocks in order; find_tool activates the deferred tool for the next turn", async () => {
    const run = catalog().registry.createRun();
    const activations: string[] = [];
    run.events.on("tool.activated", ({ name, via }) => activations.push(`${name} via ${via}`));
    const results = await runAnthropicToolUses(run, fixture("find-tool-turn-1").content);
    expect(results.map((result) => result.tool_use_id)).toEqual(["toolu_01ReadNote8fKp2QzLm4Yt", "toolu_01FindTool3HsW9cVxNe6R"]);
    expect(results[0]).toEqual({
      type: "tool_result",
      tool_use_id: "toolu_01ReadNote8fKp2QzLm4Yt",
      content: 'Note "trip": fly to Lisbon on Friday.',
    });
    expect(results[1]?.is_error).toBeUndefined();
    expect(activations).toEqual(["weather_forecast via find_tool"]);
    expect(names(anthropicTools(run))).toContain("weather_forecast");
  });

  it("returns a denied, an invalid and a not-activated call as error results the model can read", async () => {
    const { registry, deleted } = catalog();
    registry.events.on("approval.requested", (request) => registry.approvals.deny(request.id, "the user keeps their notes"));
    const run = registry.createRun({ permissions: { approval: "destructive" } });
    run.activate(["delete_note", "weather_forecast"]);
    const results = await runAnthropicToolUses(run, fixture("refused-and-failed").content);
    expect(results.map((result) => result.is_error)).toEqual([true, true, true]);
    const errors = results.map(
      (result) => (JSON.parse(String(result.content ?? "{}")) as { error: { code: string; hint?: string } }).error,
    );
    expect(errors.map((error) => error.code)).toEqual(["approval_denied", "invalid_input", "tool_not_activated"]);
    expect(results[0]?.content).toContain("the user keeps their notes");
    expect(errors[2]?.hint).toContain("select:currency_convert");
    expect(deleted).toEqual([]);
  });

  it("activates the tool the provider's search referenced, calls it, and skips the server tool use", async () => {
    const run = catalog().registry.createRun();
    const activations: string[] = [];
    run.events.on("tool.activated", ({ name, via }) => activations.push(`${name} via ${via}`));
    const results = await runAnthropicToolUses(run, fixture("tool-search-turn-1").content);
    expect(activations).toEqual(["weather_forecast via anthropic_tool_search"]);
    expect(results).toEqual([
      {
        type: "tool_result",
        tool_use_id: "toolu_01Forecast9PqR3sTu5VwXy",
        content: '{"city":"Lisbon","days":2,"sky":"sunny"}',
      },
    ]);
  });

  it("ignores references to tools the run does not have, and answers a handler's empty output without content", async () => {
    const run = catalog().registry.createRun();
    run.activate(["currency_convert"]);
    const content: Anthropic.Messages.ContentBlock[] = [
      {
        type: "tool_search_tool_result",
        tool_use_id: "srvtoolu_1",
        content: { type: "tool_search_tool_search_result", tool_references: [{ type: "tool_reference", tool_name: "nope" }] },
      },
      {
        type: "tool_use",
        id: "toolu_1",
        name: "currency_convert",
        input: { amount: 1, from: "EUR", to: "USD" },
        caller: { type: "direct" },
      },
    ];
    expect(activateToolReferences(run, content)).toEqual([]);
    expect(await runAnthropicToolUses(run, content)).toEqual([{ type: "tool_result", tool_use_id: "toolu_1" }]);
  });

  it("answers every tool_use with an aborted error when the signal is aborted", async () => {
    const run = catalog().registry.createRun();
    const controller = new AbortController();
    controller.abort();
    const results = await runAnthropicToolUses(run, fixture("find-tool-turn-1").content, { signal: controller.signal });
    expect(results.map((result) => [result.is_error, String(result.content).includes('"aborted"')])).toEqual([
      [true, true],
      [true, true],
    ]);
  });
});

describe("anthropicToolLoop", () => {
  it("runs find_tool discovery over recorded responses: the tools grow, every tool_use is answered", async () => {
    const run = catalog().registry.createRun();
    const { client, requests } = scriptedClient(["find-tool-turn-1", "find-tool-turn-2", "find-tool-turn-3"].map(fixture));
    const result = await anthropicToolLoop(run, {
      client,
      model: "claude-sonnet-4-5",
      system: "You help with travel.",
      messages: [{ role: "user", content: "What will the weather be on my trip?" }],
      params: { temperature: 0, stream: true },
    });
    expect(result.stopReason).toBe("end_turn");
    expect(result.turns).toBe(3);
    expect(requests.map((request) => names((request.tools ?? []) as { name: string }[]).sort())).toEqual([
      ["find_tool", "read_note"],
      ["find_tool", "read_note", "weather_forecast"],
      ["find_tool", "read_note", "weather_forecast"],
    ]);
    expect(requests[0]).toMatchObject({
      model: "claude-sonnet-4-5",
      max_tokens: 4096,
      system: "You help with travel.",
      temperature: 0,
    });
    expect(requests[0]).not.toHaveProperty("stream");
    expect(result.messages.map((message) => message.role)).toEqual([
      "user",
      "assistant",
      "user",
      "assistant",
      "user",
      "assistant",
    ]);
    expect(JSON.stringify(result.messages[4])).toContain('\\"sky\\":\\"sunny\\"');
    expect(requests[2]?.messages).toHaveLength(5);
  });

  it("drives the real Anthropic client with native tool search, and keeps the tools byte-identical", async () => {
    const run = catalog().registry.createRun();
    const bodies: Anthropic.Messages.MessageCreateParamsNonStreaming[] = [];
    const responses = ["tool-search-turn-1", "tool-search-turn-2"].map(fixture);
    const client = new Anthropic({
      apiKey: "test-key",
      maxRetries: 0,
      fetch: async (_url, init) => {
        bodies.push(JSON.parse(String(init?.body)) as Anthropic.Messages.MessageCreateParamsNonStreaming);
        const body = responses[bodies.length - 1];
        if (body === undefined) throw new Error("unexpected request");
        return new Response(JSON.stringify(body), { status: 200, headers: { "content-type": "application/json" } });
      },
    });
    const result = await anthropicToolLoop(run, {
      client,
      model: "claude-sonnet-4-5",
      messages: [{ role: "user", content: "Weather in Lisbon?" }],
      nativeToolSearch: "bm25",
      maxTokens: 1024,
    });
    const conversation: Anthropic.Messages.MessageParam[] = result.messages;
    expect(conversation).toHaveLength(4);
    expect(bodies).toHaveLength(2);
    expect(JSON.stringify(bodies[1]?.tools)).toBe(JSON.stringify(bodies[0]?.tools));
    expect(bodies[0]?.tools?.[0]).toEqual({ type: "tool_search_tool_bm25_20251119", name: "tool_search_tool_bm25" });
    expect(JSON.stringify(bodies[1]?.messages.at(-1))).toContain("toolu_01Forecast9PqR3sTu5VwXy");
    expect(result.stopReason).toBe("end_turn");
  });

  it("stops at maxTurns after answering the last tool calls, so the conversation can go on", async () => {
    const run = catalog().registry.createRun();
    const { client } = scriptedClient([fixture("find-tool-turn-1")]);
    const result = await anthropicToolLoop(run, { client, model: "m", messages: [{ role: "user", content: "hi" }], maxTurns: 1 });
    expect(result.stopReason).toBe("max_turns");
    expect(result.messages.at(-1)?.role).toBe("user");
    await expect(anthropicToolLoop(run, { client, model: "m", messages: [], maxTurns: 0 })).rejects.toThrow(ConfigurationError);
  });

  it("continues a pause_turn by sending the response back as it is", async () => {
    const run = catalog().registry.createRun();
    const paused: AnthropicMessagesResponse = { content: [{ type: "text" }], stop_reason: "pause_turn" };
    const { client, requests } = scriptedClient([paused, fixture("find-tool-turn-3")]);
    const result = await anthropicToolLoop(run, { client, model: "m", messages: [{ role: "user", content: "hi" }] });
    expect(result.turns).toBe(2);
    expect(requests[1]?.messages.map((message) => message.role)).toEqual(["user", "assistant"]);
  });

  it("learns from the history which tools the provider's search loaded when the run is rebuilt", async () => {
    const saved = catalog().registry.createRun();
    const turn = fixture("tool-search-turn-1");
    const history: Anthropic.Messages.MessageParam[] = [
      { role: "user", content: "Weather in Lisbon?" },
      { role: "assistant", content: turn.content },
      { role: "user", content: await runAnthropicToolUses(saved, turn.content) },
    ];
    const run: Run = catalog().registry.createRun({ activation: saved.toJSON().activation });
    const { client, requests } = scriptedClient([fixture("tool-search-turn-2")]);
    await anthropicToolLoop(run, { client, model: "m", messages: history, nativeToolSearch: "bm25" });
    expect(requests[0]?.tools).toContainEqual(expect.objectContaining({ name: "weather_forecast", defer_loading: true }));
  });
});
