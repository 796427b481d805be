import { describe, expect, it } from "vitest";
import { checkMcpInputSchema } from "./check-mcp-input-schema.js";

describe("checkMcpInputSchema", () => {
  it("accepts ordinary schemas, local references and recursion", () => {
    expect(
      checkMcpInputSchema({
        type: "object",
        properties: { a: { $ref: "#/$defs/a" }, self: { $ref: "#" }, $ref: { type: "string", pattern: "^[a-z]+$" } },
        $defs: { a: { type: "string" } },
      }),
    ).toBeUndefined();
  });

  it.each<[string, unknown, RegExp]>([
    ["a dangling $ref", { type: "object", properties: { a: { $ref: "#/definitions/missing" } } }, /does not exist/],
    ["a remote $ref", { type: "object", properties: { a: { $ref: "https://evil.test/s.json" } } }, /refers outside/],
    [
      "a broken pattern",
      { type: "object", properties: { a: { type: "string", pattern: "(" } } },
      /not a valid regular expression/,
    ],
    ["a broken patternProperties key", { type: "object", patternProperties: { "[": {} } }, /not a valid regular expression/],
    [
      "a $ref cycle that never reaches a schema",
      { type: "object", properties: { a: { $ref: "#/$defs/x" } }, $defs: { x: { $ref: "#/$defs/y" }, y: { $ref: "#/$defs/x" } } },
      /circular \$ref/,
    ],
    ["a root that refers to itself", { $ref: "#" }, /circular \$ref/],
    [
      "a chain that ends nowhere",
      { type: "object", properties: { a: { $ref: "#/$defs/x" } }, $defs: { x: { $ref: "#/$defs/gone" } } },
      /does not exist/,
    ],
  ])("rejects %s", (_label, schema, message) => {
    expect(checkMcpInputSchema(schema)).toMatch(message);
  });

  it("stops at absurd depth instead of recursing forever", () => {
    let schema: Record<string, unknown> = { type: "string" };
    for (let level = 0; level < 200; level++) schema = { type: "object", properties: { next: schema } };
    expect(checkMcpInputSchema(schema)).toMatch(/nested deeper/);
  });
});
