import { describe, expect, it } from "vitest";
import { moveMcpPatternsToDescriptions } from "./move-mcp-patterns.js";

describe("moveMcpPatternsToDescriptions", () => {
  it("moves pattern into the description, everywhere a schema can sit", () => {
    const schema = {
      type: "object",
      properties: {
        id: { type: "string", description: "The id.", pattern: "^[a-z]+$" },
        list: { type: "array", items: { type: "string", pattern: "^x" } },
        either: { anyOf: [{ type: "string", pattern: "^y" }, { type: "number" }] },
        hidden: { $ref: "#/x-shapes/slow" },
      },
      $defs: { d: { type: "string", pattern: "^d" } },
      "x-shapes": { slow: { type: "string", pattern: "(a+)+$" } },
      propertyNames: { pattern: "^[a-z]+$" },
    };
    const moved = moveMcpPatternsToDescriptions(schema);
    expect(JSON.stringify(moved)).not.toMatch(/"pattern":/);
    expect(moved).toMatchObject({
      properties: {
        id: { description: "The id. Must match the regular expression /^[a-z]+$/ (the server checks it)." },
        list: { items: { description: expect.stringContaining("/^x/") } },
        either: { anyOf: [{ description: expect.stringContaining("/^y/") }, { type: "number" }] },
        hidden: { $ref: "#/x-shapes/slow" },
      },
      $defs: { d: { description: expect.stringContaining("/^d/") } },
      "x-shapes": { slow: { type: "string", description: expect.stringContaining("/(a+)+$/") } },
    });
    expect(schema.properties.id.pattern).toBe("^[a-z]+$");
  });

  it("drops patternProperties with the same node's additionalProperties, which would refuse those names", () => {
    const moved = moveMcpPatternsToDescriptions({
      type: "object",
      properties: { a: { type: "string" } },
      patternProperties: { "^x-": { type: "string" } },
      additionalProperties: false,
      unevaluatedProperties: false,
    });
    expect(moved).toEqual({
      type: "object",
      properties: { a: { type: "string" } },
      description: "Other properties whose names match /^x-/ are accepted (the server checks them).",
    });
  });

  it("keeps properties named like keywords, and data values, as they are", () => {
    const schema = {
      type: "object",
      properties: {
        pattern: { type: "string" },
        patternProperties: { type: "object" },
        additionalProperties: { type: "boolean" },
      },
      default: { pattern: "^kept$" },
      enum: [{ pattern: "^kept$" }],
      const: { pattern: "^kept$" },
      examples: [{ pattern: "^kept$" }],
    };
    expect(moveMcpPatternsToDescriptions(schema)).toEqual(schema);
  });
});
