/**
 * Review b, finding 5: a tool schema whose top is a `oneOf` / `anyOf` of object branches ("give
 * `id` or `name`") went to the model as `{"type":"object"}` with no properties, for Anthropic and
 * OpenAI alike (the branches only in the description's JSON, cut at 2,000 characters). The union
 * of the branches' properties is now at the top, required only where every branch requires it.
 */
import { createRegistry, defineTool, type JsonObjectSchema } from "agent-tool-catalog";
import { anthropicTools } from "agent-tool-catalog/anthropic";
import { convertToStrictJsonSchema, openAIChatTools, openAIResponsesTools } from "agent-tool-catalog/openai";
import { describe, expect, it } from "vitest";

const ONE_OF = {
  type: "object",
  oneOf: [
    { type: "object", properties: { id: { type: "string" }, org: { type: "string" } }, required: ["id", "org"] },
    { type: "object", properties: { name: { type: "string" }, org: { type: "string" } }, required: ["name", "org"] },
  ],
} as JsonObjectSchema;
const ANY_OF = {
  type: "object",
  properties: { verbose: { type: "boolean" } },
  anyOf: [
    { type: "object", properties: { limit: { type: "integer" } } },
    { type: "object", properties: { limit: { type: "string" } }, required: ["limit"] },
  ],
} as JsonObjectSchema;

function run() {
  const registry = createRegistry({
    tools: [
      defineTool({ name: "get_user", description: "Get a user.", tier: "core", inputSchema: ONE_OF, handler: () => "user" }),
      defineTool({ name: "list_items", description: "List items.", tier: "core", inputSchema: ANY_OF, handler: () => "items" }),
    ],
  });
  return registry.createRun();
}

const GET_USER_PROPERTIES = { id: { type: "string" }, org: { type: "string" }, name: { type: "string" } };

describe("a top-level oneOf / anyOf of object branches", () => {
  it("Anthropic: the model sees every branch's properties; required only when every branch requires it", () => {
    const tools = anthropicTools(run());
    const getUser = tools.find((tool) => tool.name === "get_user");
    const schema = getUser && "input_schema" in getUser ? getUser.input_schema : undefined;
    expect(schema).not.toHaveProperty("oneOf");
    expect(schema?.properties).toEqual(GET_USER_PROPERTIES);
    expect(schema?.required).toEqual(["org"]);
    // The branches stay in the description for the model.
    expect(getUser && "description" in getUser ? getUser.description : undefined).toContain('"oneOf"');
    const listItems = tools.find((tool) => tool.name === "list_items");
    const items = listItems && "input_schema" in listItems ? listItems.input_schema : undefined;
    expect(items?.properties).toEqual({
      verbose: { type: "boolean" },
      limit: { anyOf: [{ type: "integer" }, { type: "string" }] },
    });
    expect(items).not.toHaveProperty("required");
  });

  it("OpenAI Chat and Responses, strict or not: the same properties, sent strict:false (a union has no strict form)", () => {
    const current = run();
    expect(convertToStrictJsonSchema(ONE_OF)).toMatchObject({ ok: false, path: "" });
    for (const strict of [false, true]) {
      const chat = openAIChatTools(current, { strict }).find(
        (tool) => tool.type === "function" && tool.function.name === "get_user",
      );
      expect(chat?.type === "function" ? chat.function.parameters?.properties : undefined).toEqual(GET_USER_PROPERTIES);
      expect(chat?.type === "function" ? chat.function.strict : undefined).toBe(false);
      const responses = openAIResponsesTools(current, { strict }).find(
        (tool) => tool.type === "function" && tool.name === "get_user",
      );
      expect(responses?.type === "function" ? responses.parameters?.properties : undefined).toEqual(GET_USER_PROPERTIES);
      expect(responses?.type === "function" ? responses.strict : undefined).toBe(false);
    }
  });

  it("positive control: the run still checks calls against the full schema", async () => {
    const current = run();
    expect(await current.call("get_user", { id: "x", org: "o" })).toMatchObject({ ok: true });
    // Valid against the offered union, but matches neither branch.
    expect(await current.call("get_user", { org: "o" })).toMatchObject({ ok: false, error: { code: "invalid_input" } });
    // Both branches match: oneOf refuses it.
    expect(await current.call("get_user", { id: "x", name: "y", org: "o" })).toMatchObject({
      ok: false,
      error: { code: "invalid_input" },
    });
  });
});
