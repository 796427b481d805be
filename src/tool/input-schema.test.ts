import { describe, expect, it } from "vitest";
import { compileSchema } from "./input-schema.js";
import { JsonSchemaCompiler } from "./json-schema-validator.js";

function compiled(schema: unknown, compiler = new JsonSchemaCompiler()) {
  const result = compileSchema(schema, compiler);
  if (!result.ok) throw new Error(result.reason);
  return result.schema;
}

describe("compileSchema of a plain JSON Schema", () => {
  it("keeps no closure of its own to bind validators: one shared function for every schema (registries of 100,000 tools)", () => {
    const a = compiled({ type: "object", properties: { a: { type: "string" } } });
    const b = compiled({ type: "object", properties: { b: { type: "number" } } });
    expect(a.bind).toBeTypeOf("function");
    expect(a.bind).toBe(b.bind);
  });

  it("binds a validator of its own schema in another compiler, lazily compiled, that accepts and refuses as the schema says", () => {
    const schema = compiled({ type: "object", properties: { n: { type: "number" } }, required: ["n"] });
    const other = new JsonSchemaCompiler();
    const validate = schema.bind?.(other, schema.jsonSchema);
    expect(validate?.({ n: 1 })).toEqual({ ok: true, value: { n: 1 } });
    const refused = validate?.({ n: "one" });
    expect(refused?.ok).toBe(false);
    expect(schema.validate({ n: 2 })).toEqual({ ok: true, value: { n: 2 } });
    expect((schema.validate({}) as { ok: boolean }).ok).toBe(false);
  });
});
