import { readFileSync } from "node:fs";
import { createRegistry, type Registry } from "agent-tool-catalog";
import {
  type OpenAIChatResultMessage,
  type OpenAIChatToolMessage,
  openAIChatRequest,
  openAIChatTools,
  runOpenAIChatToolCalls,
} from "agent-tool-catalog/openai";
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { deferredDeleteNoteTool, readNoteTool, weatherForecastTool } from "../support/note-tools.js";

function fixture(name: string): OpenAI.Chat.Completions.ChatCompletion {
  return JSON.parse(
    readFileSync(new URL(`../fixtures/openai/${name}.json`, import.meta.url), "utf8"),
  ) as OpenAI.Chat.Completions.ChatCompletion;
}

function catalog(): { registry: Registry; deleted: string[] } {
  const deleted: string[] = [];
  const registry = createRegistry({
    tools: [readNoteTool(), deferredDeleteNoteTool(deleted), weatherForecastTool()],
  });
  return { registry, deleted };
}

/** A real OpenAI client whose HTTP requests are answered by recorded completions, in order. */
function recordedClient(names: readonly string[]) {
  const bodies: OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming[] = [];
  const client = new OpenAI({
    apiKey: "test-key",
    maxRetries: 0,
    fetch: async (_url, init) => {
      bodies.push(JSON.parse(String(init?.body)) as OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming);
      const name = names[bodies.length - 1];
      if (name === undefined) throw new Error("unexpected request");
      return new Response(JSON.stringify(fixture(name)), { status: 200, headers: { "content-type": "application/json" } });
    },
  });
  return { client, bodies };
}

/** The run's error code in a tool message, or undefined for a successful call's output. */
function errorCode(content: string): string | undefined {
  if (!content.startsWith('{"error"')) return undefined;
  return (JSON.parse(content) as { error: { code: string } }).error.code;
}

describe("openAIChatTools", () => {
  it("sends the visible tools with their own schemas, or their strict forms when asked", () => {
    const run = catalog().registry.createRun();
    const plain = openAIChatTools(run);
    expect(plain.map((tool) => [tool.function.name, tool.function.strict]).sort()).toEqual([
      ["find_tool", false],
      ["read_note", false],
    ]);
    run.activate(["weather_forecast"]);
    const strict = openAIChatTools(run, { strict: true });
    const byName = new Map(strict.map((tool) => [tool.function.name, tool.function]));
    // find_tool's query has minLength/maxLength, which strict mode does not support.
    expect(byName.get("find_tool")?.strict).toBe(false);
    expect(byName.get("weather_forecast")).toMatchObject({
      strict: true,
      parameters: {
        required: ["city", "days"],
        additionalProperties: false,
        properties: { days: { type: ["integer", "null"] } },
      },
    });
    expect(openAIChatTools(run, { strict: true })[2]?.function.parameters).toBe(byName.get("weather_forecast")?.parameters);
  });
});

/** The tool messages of a batch (no images or files here, so no user message either). */
function onlyToolMessages(messages: readonly OpenAIChatResultMessage[]): OpenAIChatToolMessage[] {
  expect(messages.every((message) => message.role === "tool")).toBe(true);
  return messages.filter((message): message is OpenAIChatToolMessage => message.role === "tool");
}

describe("runOpenAIChatToolCalls", () => {
  it("answers malformed JSON arguments with invalid_input, and runs the other call", async () => {
    const run = catalog().registry.createRun();
    const message = fixture("chat-turn-1-malformed-arguments").choices[0]?.message;
    const results = onlyToolMessages(await runOpenAIChatToolCalls(run, message?.tool_calls));
    expect(results.map((result) => result.tool_call_id)).toEqual(["call_ReadNote4kZ8mQ2xW7", "call_FindTool9pL3vN6bT1"]);
    expect(results[0]).toEqual({
      role: "tool",
      tool_call_id: "call_ReadNote4kZ8mQ2xW7",
      content: 'Note "trip": fly to Lisbon on Friday.',
    });
    expect(errorCode(results[1]?.content ?? "")).toBe("invalid_input");
    expect(results[1]?.content).toContain("not valid JSON");
    expect(await runOpenAIChatToolCalls(run, null)).toEqual([]);
  });

  it("returns a denied call as the run's error, and skips custom tool calls", async () => {
    const { registry, deleted } = catalog();
    registry.events.on("approval.requested", (request) => registry.approvals.deny(request.id, "not today"));
    const run = registry.createRun({ permissions: { approval: "destructive" } });
    run.activate(["delete_note"]);
    const calls: OpenAI.Chat.Completions.ChatCompletionMessageToolCall[] = [
      { id: "call_1", type: "function", function: { name: "delete_note", arguments: '{"title":"groceries"}' } },
      { id: "call_2", type: "custom", custom: { name: "grammar_tool", input: "x" } },
    ];
    const results = onlyToolMessages(await runOpenAIChatToolCalls(run, calls));
    expect(results).toHaveLength(1);
    expect(errorCode(results[0]?.content ?? "")).toBe("approval_denied");
    expect(deleted).toEqual([]);
  });
});

describe("a Chat Completions tool loop with the real OpenAI client", () => {
  it("recovers from malformed JSON, discovers a tool with find_tool, and round-trips strict nulls", async () => {
    const run = catalog().registry.createRun();
    const { client, bodies } = recordedClient([
      "chat-turn-1-malformed-arguments",
      "chat-turn-2-find-tool",
      "chat-turn-3-strict-nulls",
      "chat-turn-4-answer",
    ]);
    const messages: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [{ role: "user", content: "Weather on my trip?" }];
    const toolMessages: OpenAI.Chat.Completions.ChatCompletionToolMessageParam[] = [];
    for (let turn = 0; turn < 5; turn++) {
      const completion = await client.chat.completions.create({
        model: "gpt-4.1",
        messages,
        tools: openAIChatTools(run, { strict: true }),
      });
      const message = completion.choices[0]?.message;
      if (message === undefined) throw new Error("no choice");
      messages.push(message);
      if (message.tool_calls === undefined || message.tool_calls.length === 0) break;
      const results = onlyToolMessages(await runOpenAIChatToolCalls(run, message.tool_calls));
      toolMessages.push(...results);
      messages.push(...results);
    }
    expect(bodies).toHaveLength(4);
    expect(bodies.map((body) => (body.tools ?? []).length)).toEqual([2, 2, 3, 3]);
    expect(toolMessages.map((message) => errorCode(String(message.content)))).toEqual([
      undefined,
      "invalid_input",
      undefined,
      undefined,
    ]);
    expect(toolMessages[3]?.content).toBe('{"city":"Lisbon","days":3,"sky":"sunny"}');
    expect(messages.at(-1)).toMatchObject({ role: "assistant", content: expect.stringContaining("sunny") });
  });
});

describe("openAIChatRequest with allowed_tools", () => {
  it("sends the same full tool list every turn and moves the change into tool_choice", () => {
    const run = catalog().registry.createRun();
    const first = openAIChatRequest(run, { allowedToolsChoice: true });
    expect(first.tools?.map((tool) => tool.function.name).sort()).toEqual([
      "delete_note",
      "find_tool",
      "read_note",
      "weather_forecast",
    ]);
    expect(first.tool_choice).toEqual({
      type: "allowed_tools",
      allowed_tools: {
        mode: "auto",
        tools: expect.arrayContaining([
          { type: "function", function: { name: "find_tool" } },
          { type: "function", function: { name: "read_note" } },
        ]),
      },
    });
    run.activate(["weather_forecast"]);
    const second = openAIChatRequest(run, { allowedToolsChoice: true, allowedToolsMode: "required" });
    expect(JSON.stringify(second.tools)).toBe(JSON.stringify(first.tools));
    const allowed = second.tool_choice === "none" ? [] : (second.tool_choice?.allowed_tools.tools ?? []);
    expect(allowed.map((tool) => tool.function.name).sort()).toEqual(["find_tool", "read_note", "weather_forecast"]);
    expect(second.tool_choice).toHaveProperty("allowed_tools.mode", "required");
    expect(openAIChatRequest(run)).toEqual({ tools: openAIChatTools(run) });
  });
});
