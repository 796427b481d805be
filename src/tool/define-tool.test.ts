import { describe, expect, expectTypeOf, it } from "vitest";
import { z } from "zod";
import { z as z3 } from "zod-v3";
import { ToolDefinitionError } from "../errors/tool-definition-error.js";
import { compileTool } from "./compile-tool.js";
import { defineTool } from "./define-tool.js";
import type { JsonObjectSchema } from "./json-schema.js";

const noop = () => "ok";

describe("defineTool", () => {
  it("turns a zod 4 schema into JSON Schema and types the handler's input", async () => {
    const tool = defineTool({
      name: "search_code",
      description: "Search code.",
      inputSchema: z.object({ query: z.string().describe("What to find"), limit: z.number().int().default(5) }),
      handler: (input) => {
        expectTypeOf(input).toEqualTypeOf<{ query: string; limit: number }>();
        return input.query;
      },
    });
    const { descriptor, validate } = compileTool(tool);
    expect(descriptor.inputSchema).toMatchObject({
      type: "object",
      properties: { query: { type: "string", description: "What to find" }, limit: { type: "integer", default: 5 } },
      required: ["query"],
    });
    expect(descriptor.inputSchema).not.toHaveProperty("$schema");
    expect(await validate({ query: "x" })).toEqual({ ok: true, value: { query: "x", limit: 5 } });
  });

  it("turns a zod 3 schema into JSON Schema and validates with it", async () => {
    const tool = defineTool({
      name: "v3_tool",
      description: "A zod 3 tool.",
      inputSchema: z3.object({ path: z3.string(), recursive: z3.boolean().optional() }),
      handler: (input) => {
        expectTypeOf(input).toEqualTypeOf<{ path: string; recursive?: boolean | undefined }>();
        return input.path;
      },
    });
    const { descriptor, validate } = compileTool(tool);
    expect(descriptor.inputSchema).toMatchObject({
      type: "object",
      properties: { path: { type: "string" }, recursive: { type: "boolean" } },
      required: ["path"],
    });
    const outcome = await validate({ path: 3 });
    expect(outcome.ok).toBe(false);
    expect(outcome.ok ? [] : outcome.issues.map((issue) => issue.path)).toEqual(["path"]);
  });

  it("accepts a plain JSON Schema and validates it with field paths", async () => {
    const tool = defineTool<{ items: { name: string }[] }>({
      name: "json_tool",
      description: "A JSON Schema tool.",
      inputSchema: {
        type: "object",
        properties: {
          items: { type: "array", items: { type: "object", properties: { name: { type: "string" } }, required: ["name"] } },
        },
        required: ["items"],
        additionalProperties: false,
      },
      handler: (input) => input.items.length,
    });
    const { validate } = compileTool(tool);
    const outcome = await validate({ items: [{ name: 1 }, {}], extra: true });
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.issues).toEqual(
      expect.arrayContaining([
        { path: "items[0].name", message: "must be string" },
        { path: "items[1].name", message: "required property is missing" },
        { path: "extra", message: "unknown property is not allowed" },
      ]),
    );
  });

  it("keeps the output schema as JSON Schema", () => {
    const tool = defineTool({
      name: "with_output",
      description: "Has an output schema.",
      inputSchema: z.object({}),
      outputSchema: z.object({ count: z.number() }),
      handler: () => ({ count: 1 }),
    });
    expect(compileTool(tool).descriptor.outputSchema).toMatchObject({
      type: "object",
      properties: { count: { type: "number" } },
    });
  });

  it.each([
    ["", "the name is empty"],
    ["has space", 'contains " "'],
    ["a".repeat(65), "65 characters long"],
    ["naïve", 'contains "ï"'],
  ])("refuses the name %j with a precise message", (name, fragment) => {
    expect(() => defineTool({ name, description: "x", inputSchema: z.object({}), handler: noop })).toThrowError(
      expect.objectContaining({ code: "invalid_tool_name", message: expect.stringContaining(fragment) }),
    );
  });

  it("refuses an input schema that is not an object schema", () => {
    const call = () => defineTool({ name: "bad", description: "x", inputSchema: z.string() as never, handler: noop });
    expect(call).toThrowError(ToolDefinitionError);
    expect(call).toThrowError(/must describe an object.*got type "string"/);
    expect(() =>
      defineTool({ name: "bad2", description: "x", inputSchema: { type: "array" } as never, handler: noop }),
    ).toThrowError(/must describe an object/);
  });

  it("refuses a JSON Schema that is not valid JSON Schema", () => {
    expect(() =>
      defineTool({
        name: "bad3",
        description: "x",
        inputSchema: { type: "object", properties: { a: { type: "strin" } } },
        handler: noop,
      }),
    ).toThrowError(
      expect.objectContaining({ code: "invalid_input_schema", message: expect.stringContaining("not a valid JSON Schema") }),
    );
  });

  it("refuses a JSON Schema the validator could never compile, which would fail every call", async () => {
    const ring = (n: number): JsonObjectSchema => ({
      type: "object",
      properties: { x: { $ref: "#/definitions/d0" } },
      definitions: Object.fromEntries(
        Array.from({ length: n }, (_, i) => [
          `d${i}`,
          { type: "object", properties: { next: { $ref: `#/definitions/d${(i + 1) % n}` } } },
        ]),
      ),
    });
    const refused: [string, JsonObjectSchema, RegExp][] = [
      ["dangling", { type: "object", properties: { a: { $ref: "#/definitions/missing" } } }, /does not exist/],
      ["outside", { type: "object", properties: { a: { $ref: "https://example.com/s.json" } } }, /refers outside the schema/],
      [
        "circular",
        {
          type: "object",
          properties: { a: { $ref: "#/definitions/a" } },
          definitions: { a: { $ref: "#/definitions/b" }, b: { $ref: "#/definitions/a" } },
        },
        /circular \$ref/,
      ],
      ["bad_pattern", { type: "object", properties: { a: { type: "string", pattern: "(" } } }, /not a valid regular expression/],
      ["ring", ring(300), /\$refs chain more than 100/],
    ];
    for (const [name, inputSchema, message] of refused) {
      expect(() => defineTool({ name, description: "x", inputSchema, handler: noop }), name).toThrowError(
        expect.objectContaining({ code: "invalid_input_schema", message: expect.stringMatching(message) }),
      );
      expect(
        () => defineTool({ name, description: "x", inputSchema: { type: "object" }, outputSchema: inputSchema, handler: noop }),
        name,
      ).toThrowError(expect.objectContaining({ code: "invalid_output_schema" }));
    }
    // Controls: a recursive schema, a ring of 100 and a valid pattern are accepted and validate.
    const tree = defineTool({
      name: "tree",
      description: "x",
      inputSchema: {
        type: "object",
        properties: { root: { $ref: "#/definitions/node" }, id: { type: "string", pattern: "^[a-z]+$" } },
        definitions: {
          node: { type: "object", properties: { children: { type: "array", items: { $ref: "#/definitions/node" } } } },
        },
      },
      handler: noop,
    });
    expect(await compileTool(tree).validate({ root: { children: [{ children: [] }] }, id: "abc" })).toMatchObject({ ok: true });
    expect(await compileTool(tree).validate({ id: "ABC" })).toMatchObject({ ok: false });
    const hundred = defineTool({ name: "ring100", description: "x", inputSchema: ring(100), handler: noop });
    expect(await compileTool(hundred).validate({ x: { next: {} } })).toMatchObject({ ok: true });
  });

  it("refuses a missing description, handler or schema, and a bad tier", () => {
    expect(() => defineTool({ name: "a", description: " ", inputSchema: z.object({}), handler: noop })).toThrowError(
      expect.objectContaining({ code: "invalid_tool_description" }),
    );
    expect(() => defineTool({ name: "a", description: "x", inputSchema: z.object({}) } as never)).toThrowError(
      expect.objectContaining({ code: "invalid_tool_handler" }),
    );
    expect(() => defineTool({ name: "a", description: "x", handler: noop } as never)).toThrowError(
      expect.objectContaining({ code: "invalid_input_schema" }),
    );
    expect(() =>
      defineTool({ name: "a", description: "x", tier: "lazy" as never, inputSchema: z.object({}), handler: noop }),
    ).toThrowError(expect.objectContaining({ code: "invalid_tool_tier" }));
  });

  it("returns a frozen definition", () => {
    const tool = defineTool({ name: "frozen", description: "x", inputSchema: z.object({}), handler: noop });
    expect(Object.isFrozen(tool)).toBe(true);
  });
});
