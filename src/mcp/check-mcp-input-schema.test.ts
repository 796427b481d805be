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

  it("bounds how deeply $refs chain into each other (a cycle counts all its members), not how many there are", () => {
    const ring = (size: number) => ({
      type: "object",
      properties: { root: { $ref: "#/$defs/d0" } },
      $defs: Object.fromEntries(
        Array.from({ length: size }, (_, index) => [
          `d${index}`,
          { type: "object", properties: { next: { $ref: `#/$defs/d${(index + 1) % size}` } } },
        ]),
      ),
    });
    const chain = (size: number) => ({
      type: "object",
      properties: { root: { $ref: "#/$defs/d0" } },
      $defs: Object.fromEntries(
        Array.from({ length: size }, (_, index) => [
          `d${index}`,
          index + 1 < size ? { type: "object", properties: { next: { $ref: `#/$defs/d${index + 1}` } } } : { type: "string" },
        ]),
      ),
    });
    const flat = (size: number) => ({
      type: "object",
      properties: Object.fromEntries(Array.from({ length: size }, (_, index) => [`p${index}`, { $ref: `#/$defs/d${index}` }])),
      $defs: Object.fromEntries(Array.from({ length: size }, (_, index) => [`d${index}`, { type: "string" }])),
    });
    expect(checkMcpInputSchema(ring(101))).toMatch(/\$refs chain more than 100/);
    expect(checkMcpInputSchema(ring(2000))).toMatch(/\$refs chain more than 100/);
    expect(checkMcpInputSchema(chain(101))).toMatch(/\$refs chain more than 100/);
    expect(checkMcpInputSchema(ring(100))).toBeUndefined();
    expect(checkMcpInputSchema(chain(100))).toBeUndefined();
    expect(checkMcpInputSchema(flat(3000))).toBeUndefined();
  });

  it("refuses schemas whose first compile would hold the host for seconds to minutes, and checks them in linear time", () => {
    // Each level refers `width` times to itself: the validator cannot inline those references.
    // Measured: 30 levels of 600 took the first call 170 s to compile; 20 of 45, 3-6 s.
    const nested = (depth: number, width: number) => {
      const root: Record<string, unknown> = { type: "object" };
      let current = root;
      let pointer = "#";
      for (let level = 0; level < depth; level++) {
        const next: Record<string, unknown> = { type: "object" };
        const properties: Record<string, unknown> = { n: next };
        for (let i = 0; i < width; i++) properties[`r${i}`] = { $ref: pointer };
        current.properties = properties;
        pointer += "/properties/n";
        current = next;
      }
      return root;
    };
    const started = performance.now();
    expect(checkMcpInputSchema(nested(30, 600))).toMatch(/more than 10000 schema nodes|\$refs to definitions that hold/);
    expect(checkMcpInputSchema(nested(20, 45))).toMatch(/900 \$refs to definitions that hold \$refs/);
    // Many spellings of one pointer are one definition, not many (a quadratic walk before).
    const spellings = Array.from({ length: 1_024 }, (_, mask) =>
      [..."properties"].map((letter, i) => (mask & (1 << i) ? `%${letter.charCodeAt(0).toString(16)}` : letter)).join(""),
    );
    const encoded = {
      type: "object",
      properties: { tree: { $ref: "#/$defs/node" } },
      $defs: {
        node: {
          type: "object",
          properties: Object.fromEntries(spellings.slice(0, 150).map((_, i) => [`c${i}`, { $ref: "#/$defs/node" }])),
        },
        other: {
          type: "object",
          properties: Object.fromEntries(spellings.map((spelling, i) => [`p${i}`, { $ref: `#/$defs/leaf/${spelling}` }])),
        },
        leaf: { properties: { type: "string" } },
      },
    };
    expect(checkMcpInputSchema(encoded)).toBeUndefined();
    expect(performance.now() - started).toBeLessThan(5_000);
    // Controls: 180 self-references (about a second to compile) and the flat $defs above pass.
    expect(checkMcpInputSchema(nested(30, 6))).toBeUndefined();
  });

  it("refuses an enum too long for the validator's quadratic meta-schema check, in seconds, not minutes", () => {
    const values = (count: number) => Array.from({ length: count }, (_, index) => `value-${index}`);
    expect(checkMcpInputSchema({ type: "object", properties: { a: { enum: values(1_000) } } })).toBeUndefined();
    const huge = { type: "object", properties: { a: { enum: values(300_000) } } };
    const started = performance.now();
    expect(checkMcpInputSchema(huge)).toMatch(/#\/properties\/a\/enum lists 300000 values/);
    // Unchecked, the validator took about 30 minutes on this; the check takes milliseconds (the
    // bound leaves room for a loaded 2-core machine, where this took 750 ms with the array built inside).
    expect(performance.now() - started).toBeLessThan(3000);
  });

  it("stops at absurd depth instead of recursing forever", () => {
    let schema: Record<string, unknown> = { type: "string" };
    for (let level = 0; level < 200; level++) schema = { type: "object", properties: { next: schema } };
    expect(checkMcpInputSchema(schema)).toMatch(/nested deeper/);
  });
});
