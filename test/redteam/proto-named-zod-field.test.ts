/**
 * Red team round 13: a zod 4 input schema with a field named "__proto__" (a valid JSON Schema
 * property name, round 12b). The pass that drops zod's ±2^53 bounds of `.int()` copied every
 * object by assignment, so the field vanished from `properties` while `required` still named
 * it: the model was told to send a field it was never described.
 */
import { createRegistry, defineTool } from "agent-tool-catalog";
import { describe, expect, it } from "vitest";
import { z } from "zod";

describe("a zod 4 field named __proto__ beside an .int() field", () => {
  it("is described in properties as well as required", async () => {
    const tool = defineTool({
      name: "t",
      description: "T.",
      tier: "core",
      inputSchema: z.object({ ["__proto__"]: z.string().describe("the odd field"), count: z.number().int() }),
      handler: (input) => input,
    });
    const run = createRegistry({ tools: [tool] }).createRun({});
    const schema = run.definitions().find((definition) => definition.name === "t")?.inputSchema as {
      properties: Record<string, { type?: string; maximum?: number }>;
      required: readonly string[];
    };
    expect(Object.keys(schema.properties).sort()).toEqual(["__proto__", "count"]);
    expect(Object.getOwnPropertyDescriptor(schema.properties, "__proto__")?.value).toMatchObject({
      type: "string",
      description: "the odd field",
    });
    expect([...schema.required].sort()).toEqual(["__proto__", "count"]);
    // Control: the int bounds are still dropped, and a call with the field runs.
    expect(schema.properties.count).toEqual({ type: "integer" });
    expect(await run.call("t", JSON.parse('{"__proto__":"x","count":1}'))).toMatchObject({ ok: true });
  });
});
