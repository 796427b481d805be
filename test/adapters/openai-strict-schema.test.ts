import { createRegistry, defineTool, type JsonObjectSchema, type JsonSchema, type ToolDescriptor } from "agent-tool-catalog";
import { convertToStrictJsonSchema, stripOptionalNulls, toStrictJsonSchema } from "agent-tool-catalog/openai";
import { Ajv } from "ajv";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { z as z3 } from "zod-v3";

/** The JSON Schema a registry makes of a zod input schema. */
function descriptorOf(inputSchema: z.ZodType<object> | z3.ZodType<object>): ToolDescriptor {
  const registry = createRegistry({
    tools: [defineTool({ name: "probe", description: "Probe.", inputSchema, handler: (input: unknown) => input })],
  });
  const descriptor = registry.get("probe");
  if (descriptor === undefined) throw new Error("probe not registered");
  return descriptor;
}

/** Checks what OpenAI requires of every object in a strict schema. */
function expectStrictShape(schema: unknown): void {
  if (Array.isArray(schema)) {
    for (const entry of schema) expectStrictShape(entry);
    return;
  }
  if (typeof schema !== "object" || schema === null) return;
  const node = schema as Record<string, unknown>;
  if (node.type === "object" || (Array.isArray(node.type) && node.type.includes("object"))) {
    expect(node.additionalProperties).toBe(false);
    expect(node.required).toEqual(Object.keys(node.properties as object));
  }
  for (const [key, value] of Object.entries(node)) if (key !== "enum" && key !== "const") expectStrictShape(value);
}

const ajv = new Ajv({ strict: false });

describe("toStrictJsonSchema", () => {
  it("closes objects, requires every property and makes the optional ones nullable", () => {
    const schema: JsonObjectSchema = {
      type: "object",
      description: "Search.",
      properties: {
        query: { type: "string", description: "What to find" },
        limit: { type: "integer", minimum: 1, default: 5, description: "How many" },
        sort: { type: "string", enum: ["asc", "desc"] },
        filter: { type: "object", properties: { tag: { type: "string" } } },
        when: { type: "string", format: "date-time" },
      },
      required: ["query"],
    };
    expect(toStrictJsonSchema(schema)).toEqual({
      type: "object",
      description: "Search.",
      properties: {
        query: { type: "string", description: "What to find" },
        limit: { type: ["integer", "null"], minimum: 1, description: "How many (Default: 5.)" },
        sort: { anyOf: [{ type: "string", enum: ["asc", "desc"] }, { type: "null" }] },
        filter: {
          type: ["object", "null"],
          properties: { tag: { type: ["string", "null"] } },
          required: ["tag"],
          additionalProperties: false,
        },
        when: { type: ["string", "null"], format: "date-time" },
      },
      required: ["query", "limit", "sort", "filter", "when"],
      additionalProperties: false,
    });
  });

  it("converts zod 4 schemas: defaults, enums, nested arrays, nullable fields, discriminated unions, recursion", () => {
    const tree = z.object({
      name: z.string(),
      get children() {
        return z.array(tree).optional();
      },
    });
    const { inputSchema } = descriptorOf(
      z.object({
        city: z.string().describe("City name"),
        days: z.number().int().min(1).max(7).default(3),
        unit: z.enum(["C", "F"]).optional(),
        stops: z.array(z.object({ name: z.string(), note: z.string().optional() })),
        comment: z.string().nullable().optional(),
        kind: z.discriminatedUnion("k", [
          z.object({ k: z.literal("a"), x: z.string().optional() }),
          z.object({ k: z.literal("b") }),
        ]),
        tree,
      }),
    );
    const strict = toStrictJsonSchema(inputSchema);
    expect(strict).toBeDefined();
    expectStrictShape(strict);
    const properties = strict?.properties ?? {};
    expect(properties.days).toMatchObject({ type: ["integer", "null"], description: "Default: 3." });
    expect(properties.comment).toEqual({ type: ["string", "null"] });
    expect(properties.kind).toHaveProperty("anyOf");
    expect(properties.tree).toEqual({ $ref: "#/definitions/__schema0" });
    expect(strict?.definitions).toHaveProperty("__schema0.required", ["name", "children"]);
  });

  it("converts zod 3 schemas (zod-to-json-schema output)", () => {
    const { inputSchema } = descriptorOf(z3.object({ text: z3.string(), tags: z3.array(z3.string()).optional() }));
    expect(toStrictJsonSchema(inputSchema)).toEqual({
      type: "object",
      properties: { text: { type: "string" }, tags: { type: ["array", "null"], items: { type: "string" } } },
      required: ["text", "tags"],
      additionalProperties: false,
    });
  });

  it.each([
    [
      "patternProperties",
      { type: "object", patternProperties: { "^x": { type: "string" } } },
      'unsupported keyword "patternProperties"',
      "",
    ],
    [
      "a map (additionalProperties schema)",
      { type: "object", properties: { m: { type: "object", additionalProperties: { type: "number" } } } },
      "additionalProperties must be false",
      "/properties/m/additionalProperties",
    ],
    [
      "if/then/else",
      // Parsed from text: an object literal with a `then` key would look like a promise.
      JSON.parse('{"type":"object","properties":{},"if":{"required":["a"]},"then":{"required":["b"]}}') as JsonSchema,
      'unsupported keyword "if"',
      "",
    ],
    ["an open object with no properties", { type: "object" }, "an open object with no properties", ""],
    [
      "a format strict mode lacks",
      { type: "object", properties: { u: { type: "string", format: "uri" } } },
      'unsupported format "uri"',
      "/properties/u/format",
    ],
    [
      "string length limits",
      { type: "object", properties: { q: { type: "string", minLength: 1 } } },
      'unsupported keyword "minLength"',
      "/properties/q",
    ],
    [
      "allOf",
      { type: "object", properties: { a: { allOf: [{ type: "string" }] } } },
      'unsupported keyword "allOf"',
      "/properties/a",
    ],
    ["a value with no type", { type: "object", properties: { any: {} } }, "a value with no type", "/properties/any"],
    [
      "tuple items",
      { type: "object", properties: { t: { type: "array", items: [{ type: "string" }] } } },
      "tuple items",
      "/properties/t/items",
    ],
    [
      "a remote $ref",
      { type: "object", properties: { r: { $ref: "https://example.com/s.json" } } },
      "only local $ref",
      "/properties/r",
    ],
  ] satisfies [string, JsonSchema, string, string][])("gives up on %s", (_label, schema, reason, path) => {
    expect(toStrictJsonSchema(schema)).toBeUndefined();
    expect(convertToStrictJsonSchema(schema)).toEqual({ ok: false, reason: expect.stringContaining(reason), path });
  });

  it("gives up on zod schemas strict mode cannot express: records, URLs, string lengths", () => {
    for (const schema of [
      z.object({ scores: z.record(z.string(), z.number()) }),
      z.object({ url: z.string().url() }),
      z.object({ name: z.string().min(1) }),
    ]) {
      expect(toStrictJsonSchema(descriptorOf(schema).inputSchema)).toBeUndefined();
    }
  });

  it("gives up on unions at the root and on objects nested deeper than 10 levels", () => {
    expect(convertToStrictJsonSchema({ type: "object", anyOf: [] })).toMatchObject({
      ok: false,
      reason: "the root must not be a union",
    });
    let deep: JsonSchema = { type: "object", properties: { leaf: { type: "string" } }, required: ["leaf"] };
    for (let level = 0; level < 10; level++) deep = { type: "object", properties: { next: deep }, required: ["next"] };
    expect(convertToStrictJsonSchema(deep)).toMatchObject({ ok: false, reason: expect.stringContaining("10 levels") });
  });
});

describe("stripOptionalNulls: the round trip of a strict tool's arguments", () => {
  const tool = defineTool({
    name: "plan_trip",
    description: "Plan a trip.",
    inputSchema: z.object({
      city: z.string(),
      days: z.number().int().default(3),
      note: z.string().nullable().optional(),
      stops: z.array(z.object({ name: z.string(), hours: z.number().optional() })).optional(),
      kind: z.discriminatedUnion("k", [
        z.object({ k: z.literal("flight"), seat: z.string().optional() }),
        z.object({ k: z.literal("train") }),
      ]),
    }),
    handler: (input) => input,
  });

  it("turns what strict mode makes the model send back into input the original schema accepts", async () => {
    const run = createRegistry({ tools: [tool] }).createRun();
    const descriptor = run.availableTools().find((candidate) => candidate.name === "plan_trip");
    if (descriptor === undefined) throw new Error("plan_trip not available");
    const strict = toStrictJsonSchema(descriptor.inputSchema);
    if (strict === undefined) throw new Error("no strict form");
    // What a strict model sends when it leaves every optional field out.
    const sent = {
      city: "Porto",
      days: null,
      note: null,
      stops: [{ name: "Ribeira", hours: null }],
      kind: { k: "flight", seat: null },
    };
    expect(ajv.validate(strict, sent)).toBe(true);
    expect((await run.call("plan_trip", sent)).ok).toBe(false);
    const stripped = stripOptionalNulls(descriptor.inputSchema, sent);
    expect(stripped).toEqual({ city: "Porto", note: null, stops: [{ name: "Ribeira" }], kind: { k: "flight" } });
    const result = await run.call("plan_trip", stripped);
    expect(result).toMatchObject({ ok: true, output: { city: "Porto", days: 3, note: null } });
  });

  it("returns the value itself when there is nothing to strip, and keeps __proto__ keys as data", () => {
    const schema: JsonSchema = { type: "object", properties: { a: { type: "string" } } };
    const value = { a: "x" };
    expect(stripOptionalNulls(schema, value)).toBe(value);
    const tricky = JSON.parse('{"a":null,"__proto__":{"polluted":true}}') as object;
    const stripped = stripOptionalNulls(schema, tricky) as Record<string, unknown>;
    expect(Object.getPrototypeOf(stripped)).toBe(Object.prototype);
    expect(Object.hasOwn(stripped, "__proto__")).toBe(true);
    expect(Object.hasOwn(stripped, "a")).toBe(false);
  });
});

describe("toStrictJsonSchema: OpenAI's string-size limits (red team round 14)", () => {
  // OpenAI refuses a strict schema whose property names, definition names, enum and const values
  // exceed 120,000 characters, or one enum of over 250 values exceeding 15,000: a 400 for the whole
  // request. Such a schema had a strict form, so one MCP tool failed every turn of the run.
  const named = (count: number, length: number): JsonSchema => ({
    type: "object",
    properties: Object.fromEntries(
      Array.from({ length: count }, (_, index) => [
        `${String(index).padStart(6, "0")}${"p".repeat(length - 6)}`,
        { type: "string" },
      ]),
    ),
  });
  const enumOf = (count: number, length: number): JsonSchema => ({
    type: "object",
    properties: {
      pick: {
        type: "string",
        enum: Array.from({ length: count }, (_, index) => `${String(index).padStart(4, "0")}${"e".repeat(length - 4)}`),
      },
    },
    required: ["pick"],
  });

  it("gives up on names and values over 120,000 characters in all; keeps a schema under it", () => {
    expect(convertToStrictJsonSchema(named(1_000, 121))).toMatchObject({ ok: false, reason: expect.stringContaining("120000") });
    const defs = {
      type: "object",
      properties: {},
      $defs: Object.fromEntries(Array.from({ length: 2 }, (_, i) => [`${i}${"d".repeat(60_000)}`, { type: "string" }])),
    };
    expect(convertToStrictJsonSchema(defs as JsonSchema)).toMatchObject({ ok: false, path: "/$defs" });
    // Positive control: 119,000 characters of names is strict.
    expect(convertToStrictJsonSchema(named(1_000, 119))).toMatchObject({ ok: true });
  });

  it("gives up on an enum of over 250 values longer than 15,000 characters; keeps 250 such values", () => {
    expect(convertToStrictJsonSchema(enumOf(300, 60))).toMatchObject({ ok: false, path: "/properties/pick/enum" });
    expect(convertToStrictJsonSchema(enumOf(250, 70))).toMatchObject({ ok: true });
    expect(convertToStrictJsonSchema(enumOf(300, 50))).toMatchObject({ ok: true });
  });
});
