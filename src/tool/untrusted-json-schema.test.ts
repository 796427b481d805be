import { describe, expect, it } from "vitest";
import { ConfigurationError } from "../errors/configuration-error.js";
import { createRegistry } from "../registry/registry.js";
import { defineTool } from "./define-tool.js";
import { untrustedJsonSchema } from "./untrusted-json-schema.js";

const tool = (name: string, schema: Record<string, unknown>) =>
  defineTool({
    name,
    description: `Tool ${name}.`,
    inputSchema: untrustedJsonSchema({ type: "object", ...schema }, { timeoutMs: 10_000 }),
    handler: (input) => JSON.stringify(input),
  });

describe("untrustedJsonSchema", () => {
  it("leaves the schema providers see unchanged, and checks calls in the schema check thread", async () => {
    const schema = { type: "object", properties: { n: { type: "integer", minimum: 1 } }, required: ["n"] } as const;
    const registry = createRegistry({ tools: [tool("counted", schema)] });
    const descriptor = registry.list().find((listed) => listed.name === "counted");
    expect(descriptor?.inputSchema).toEqual(schema);
    expect(JSON.stringify(descriptor?.inputSchema)).toBe(JSON.stringify(schema));
    const run = registry.createRun();
    expect(await run.call("counted", { n: 2 })).toMatchObject({ ok: true, output: '{"n":2}' });
    expect(await run.call("counted", { n: 0 })).toMatchObject({
      ok: false,
      error: { code: "invalid_input", issues: [{ path: "n", message: "must be >= 1" }] },
    });
    expect(await run.call("counted", {})).toMatchObject({
      ok: false,
      error: { code: "invalid_input", issues: [{ path: "n", message: "required property is missing" }] },
    });
    await registry.close();
  }, 60_000);

  it("keeps two schemas that share an $id apart (the thread shares its validator instances)", async () => {
    const registry = createRegistry({
      tools: [
        tool("first", { $id: "https://example.test/input", properties: { a: { type: "string" } }, required: ["a"] }),
        tool("second", { $id: "https://example.test/input", properties: { b: { type: "number" } }, required: ["b"] }),
      ],
    });
    const run = registry.createRun();
    expect(await run.call("first", { a: "x" })).toMatchObject({ ok: true });
    expect(await run.call("second", { b: 1 })).toMatchObject({ ok: true });
    expect(await run.call("second", { a: "x" })).toMatchObject({ ok: false, error: { code: "invalid_input" } });
    expect(await run.call("first", { b: 1 })).toMatchObject({ ok: false, error: { code: "invalid_input" } });
    await registry.close();
  }, 60_000);

  it("refuses a time limit that is not a positive number", () => {
    for (const timeoutMs of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => untrustedJsonSchema({ type: "object" }, { timeoutMs })).toThrow(ConfigurationError);
    }
  });
});
