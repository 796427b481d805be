import { describe, expect, it } from "vitest";
import { z } from "zod";
import * as mini from "zod/mini";
import { toJSONSchema } from "zod/v4/core";
import { compileSchema } from "./input-schema.js";
import { JsonSchemaCompiler } from "./json-schema-validator.js";

// The root no longer imports zod/v4/core: a classic zod 4 schema converts itself, and zod/mini
// (which has no toJSONSchema of its own) loads the core on demand. Both must give what the core's
// converter gave before.
function jsonOf(schema: unknown) {
  const result = compileSchema(schema, new JsonSchemaCompiler());
  if (!result.ok) throw new Error(result.reason);
  return result.schema.jsonSchema;
}

const options = { io: "input", unrepresentable: "any", target: "draft-7" } as const;

describe("zod 4 input schemas", () => {
  it("convert a classic schema with its own method, as the core's converter does", () => {
    const schema = z.object({
      path: z.string().min(1).describe("A path"),
      mode: z.enum(["a", "b"]).default("a"),
      when: z.date().optional(),
      count: z.number().int().optional(),
    });
    expect(typeof (schema as unknown as { toJSONSchema?: unknown }).toJSONSchema).toBe("function");
    const { $schema: _ignored, ...expected } = toJSONSchema(schema, options) as Record<string, unknown>;
    const properties = expected.properties as Record<string, Record<string, unknown>>;
    delete properties.count?.minimum;
    delete properties.count?.maximum;
    expect(jsonOf(schema)).toEqual(expected);
  });

  it("convert a zod/mini schema (no method of its own) with the core loaded on demand", () => {
    const schema = mini.object({ path: mini.string().check(mini.minLength(1)), flag: mini.optional(mini.boolean()) });
    expect((schema as unknown as { toJSONSchema?: unknown }).toJSONSchema).toBeUndefined();
    expect(jsonOf(schema)).toEqual({
      type: "object",
      properties: { path: { type: "string", minLength: 1 }, flag: { type: "boolean" } },
      required: ["path"],
    });
  });
});
