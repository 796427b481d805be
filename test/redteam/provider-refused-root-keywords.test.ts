/**
 * Red team round 14: the Messages API refuses a tool whose `input_schema` has `anyOf`, `oneOf` or
 * `allOf` at the top ("tools.N.custom.input_schema: input_schema does not support oneOf, allOf, or
 * anyOf at the top level"), a 400 for the whole request. MCP servers publish such schemas ("give
 * `id` or `name`"); the Anthropic adapter sent them as they were, so one such tool, once active (or
 * at once with `nativeToolSearch`, which sends every tool), failed every request of the run.
 * OpenAI refuses those and `enum`, `const`, `not` at the top of a function's `parameters` ("schema
 * must have type 'object' and not have 'oneOf'/'anyOf'/'allOf'/'enum'/'not' at the top level"); a
 * schema with a root union has no strict form either, so it went out as it was in both modes.
 */
import Anthropic from "@anthropic-ai/sdk";
import { createRegistry, defineTool, type JsonObjectSchema } from "agent-tool-catalog";
import { anthropicToolLoop, anthropicTools } from "agent-tool-catalog/anthropic";
import { openAIChatTools, openAIResponsesTools } from "agent-tool-catalog/openai";
import type OpenAI from "openai";
import { describe, expect, it } from "vitest";

const EITHER: JsonObjectSchema = {
  type: "object",
  properties: { id: { type: "string" }, name: { type: "string" } },
  anyOf: [{ required: ["id"] }, { required: ["name"] }],
};
const BOTH: JsonObjectSchema = {
  type: "object",
  allOf: [
    { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    { type: "object", properties: { days: { type: "integer" } }, required: ["days"] },
  ],
};

function catalog() {
  return createRegistry({
    tools: [
      defineTool({ name: "get_user", description: "Get a user.", tier: "deferred", inputSchema: EITHER, handler: () => "user" }),
      defineTool({
        name: "plan_trip",
        description: "Plan a trip.",
        tier: "deferred",
        inputSchema: BOTH,
        handler: () => "planned",
      }),
      defineTool({
        name: "read_note",
        description: "Read a note.",
        tier: "deferred",
        inputSchema: { type: "object", properties: { title: { type: "string" } }, required: ["title"] },
        handler: () => "note",
      }),
    ],
  });
}

const ROOT = ["anyOf", "oneOf", "allOf"];

describe("Anthropic: a tool schema with anyOf / oneOf / allOf at the top", () => {
  it("is sent without them (the API refuses them), with the rule in the description and allOf's properties at the top", async () => {
    const run = catalog().createRun();
    run.activate(["get_user", "plan_trip", "read_note"]);
    const bodies: Anthropic.Messages.MessageCreateParamsNonStreaming[] = [];
    const client = new Anthropic({
      apiKey: "test-key",
      maxRetries: 0,
      fetch: async (_url, init) => {
        bodies.push(JSON.parse(String(init?.body)) as Anthropic.Messages.MessageCreateParamsNonStreaming);
        const body = {
          id: "m",
          type: "message",
          role: "assistant",
          model: "m",
          content: [{ type: "text", text: "ok" }],
          stop_reason: "end_turn",
          stop_sequence: null,
          usage: { input_tokens: 1, output_tokens: 1 },
        };
        return new Response(JSON.stringify(body), { status: 200, headers: { "content-type": "application/json" } });
      },
    });
    await anthropicToolLoop(run, { client, model: "m", messages: [{ role: "user", content: "hi" }] });
    const tools = (bodies[0]?.tools ?? []) as Anthropic.Messages.Tool[];
    for (const tool of tools)
      for (const keyword of ROOT) expect(tool.input_schema, `${tool.name}.${keyword}`).not.toHaveProperty(keyword);
    const getUser = tools.find((tool) => tool.name === "get_user");
    expect(getUser?.description).toContain('"anyOf":[{"required":["id"]},{"required":["name"]}]');
    expect(getUser?.input_schema.properties).toEqual(EITHER.properties);
    const planTrip = tools.find((tool) => tool.name === "plan_trip");
    expect(planTrip?.input_schema).toMatchObject({
      properties: { city: { type: "string" }, days: { type: "integer" } },
      required: ["city", "days"],
    });
    // The native tool search path sends every tool, deferred ones too: the same holds there.
    for (const tool of anthropicTools(catalog().createRun(), { nativeToolSearch: "bm25" })) {
      if ("input_schema" in tool) for (const keyword of ROOT) expect(tool.input_schema).not.toHaveProperty(keyword);
    }
  });

  it("positive controls: the run still holds calls to the full schema; a schema without them is sent as it is", async () => {
    const run = catalog().createRun();
    run.activate(["get_user", "read_note"]);
    expect(await run.call("get_user", {})).toMatchObject({ ok: false, error: { code: "invalid_input" } });
    expect(await run.call("get_user", { name: "ada" })).toMatchObject({ ok: true, output: "user" });
    const readNote = anthropicTools(run).find((tool) => tool.name === "read_note");
    expect(readNote && "input_schema" in readNote ? readNote.input_schema : undefined).toBe(
      run.catalog.describe("read_note")?.inputSchema,
    );
    // The same bytes every turn (prompt caching).
    expect(JSON.stringify(anthropicTools(run))).toBe(JSON.stringify(anthropicTools(run)));
  });
});

describe("OpenAI: a function schema with anyOf / oneOf / allOf / enum / const / not at the top", () => {
  const ROOT_OPENAI = ["anyOf", "oneOf", "allOf", "enum", "const", "not"];
  it("is sent without them in Chat and Responses, strict or not, the rule in the description", () => {
    const registry = catalog();
    registry.register(
      defineTool({
        name: "not_both",
        description: "Not both.",
        tier: "deferred",
        inputSchema: { type: "object", properties: { a: { type: "string" } }, not: { required: ["a", "b"] } },
        handler: () => "ok",
      }),
    );
    const run = registry.createRun();
    run.activate(["get_user", "plan_trip", "read_note", "not_both"]);
    for (const strict of [false, true]) {
      const chat: OpenAI.Chat.ChatCompletionTool[] = openAIChatTools(run, { strict });
      const responses: OpenAI.Responses.Tool[] = openAIResponsesTools(run, { strict });
      const parameters = [
        ...chat.map((tool) => (tool.type === "function" ? tool.function.parameters : undefined)),
        ...responses.map((tool) => (tool.type === "function" ? tool.parameters : undefined)),
      ];
      expect(parameters.length).toBeGreaterThanOrEqual(8);
      for (const schema of parameters) for (const keyword of ROOT_OPENAI) expect(schema ?? {}).not.toHaveProperty(keyword);
      const getUser = chat.find((tool) => tool.type === "function" && tool.function.name === "get_user");
      expect(getUser?.type === "function" && getUser.function.description).toContain('"anyOf"');
    }
  });
});
