import { describe, expect, it } from "vitest";
import { createRegistry } from "../registry/registry.js";
import { defineTool } from "./define-tool.js";
import type { JsonSchema } from "./json-schema.js";
import { explainMalformedJsonSchema } from "./json-schema-structure.js";

describe("the structural JSON Schema check at definition (Ajv's meta-schema check waits for the first call)", () => {
  it.each([
    [{ type: "object", properties: { a: { type: "strin" } } }, "schema/properties/a/type must be one of"],
    [{ type: ["string", "string"] }, "schema/type must not list a type twice"],
    [{ type: "object", required: "a" }, "schema/required must be a list of property names"],
    [{ type: "object", properties: [] }, "schema/properties must be an object of schemas"],
    [{ type: "object", properties: { a: { items: 3 } } }, "schema/properties/a/items must be a schema"],
    [{ type: "object", anyOf: [] }, "schema/anyOf must be a non-empty list of schemas"],
    [{ type: "object", properties: { "a/b": { minLength: -1 } } }, "schema/properties/a~1b/minLength must be a whole number"],
    [{ type: "object", properties: { a: { pattern: 5 } } }, "schema/properties/a/pattern must be a string"],
    [{ type: "object", definitions: { d: { not: "x" } } }, "schema/definitions/d/not must be a schema"],
    [{ type: "object", properties: { a: { multipleOf: 0 } } }, "multipleOf must be a number greater than 0"],
  ])("refuses %j", (schema, message) => {
    expect(explainMalformedJsonSchema(schema as JsonSchema)).toContain(message);
    expect(() => defineTool({ name: "bad", description: "x", inputSchema: schema as never, handler: () => 1 })).toThrowError(
      expect.objectContaining({ code: "invalid_input_schema", message: expect.stringContaining(message) }),
    );
  });

  it("positive control: well-formed schemas of both drafts pass", () => {
    const schemas: JsonSchema[] = [
      {
        type: "object",
        properties: {
          a: { type: ["string", "null"], minLength: 1, pattern: "^x" },
          b: { type: "array", items: [{ type: "integer" }, true], additionalItems: false },
          c: { anyOf: [{ const: 1 }, { enum: [2, 3] }], not: { type: "boolean" } },
        },
        required: ["a"],
        dependencies: { a: ["b"], b: { required: ["c"] } },
        definitions: { d: { $ref: "#/properties/a" } },
      },
      { $schema: "https://json-schema.org/draft/2020-12/schema", type: "object", $defs: { x: { prefixItems: [{}] } } },
    ];
    for (const schema of schemas) expect(explainMalformedJsonSchema(schema)).toBeUndefined();
  });

  it("what the structural check lets through, the validator's meta-schema check refuses loudly at the first call", async () => {
    // contentEncoding must be a string (draft 7's meta-schema); the structural check does not look at it.
    const tool = defineTool({
      name: "odd",
      description: "x",
      inputSchema: { type: "object", properties: { a: { contentEncoding: 5 } } } as never,
      handler: () => "ran",
    });
    const result = await createRegistry({ tools: [tool] })
      .createRun()
      .call("odd", { a: "x" });
    expect(result.ok).toBe(false);
    expect(result).toMatchObject({ error: { code: "tool_failed", message: expect.stringContaining("unusable input schema") } });
    // positive control: the same tool with a string contentEncoding runs
    const fine = defineTool({
      name: "fine",
      description: "x",
      inputSchema: { type: "object", properties: { a: { contentEncoding: "base64" } } },
      handler: () => "ran",
    });
    expect(
      (
        await createRegistry({ tools: [fine] })
          .createRun()
          .call("fine", { a: "x" })
      ).ok,
    ).toBe(true);
  });
});
