/**
 * Red team round 44: a JSON Schema field named "__proto__" (a valid property name) is never
 * checked by Ajv, which reads the name as the prototype: `{"__proto__": 5}` passes a string field
 * and `required: ["__proto__"]` is met by `{}`. A host tool with such a schema was registered and
 * described to the model with a field nothing checked. An MCP server's such field was also lost on
 * the way in: the MCP SDK's zod schema for `tools/list` reads `properties` as a record and zod 4
 * drops a `__proto__` key from it, so the tool was registered with `required: ["__proto__"]` and
 * no such property (round 13 fixed the description of such a zod field). Such
 * schemas are now refused (a `ToolDefinitionError`; the MCP tool rejected, `invalid_input_schema`),
 * and an MCP tool's schemas are taken from the server's JSON as it came, so the field is seen.
 */
import path from "node:path";
import { createRegistry, defineTool, ToolDefinitionError } from "agent-tool-catalog";
import { connectMcpServer } from "agent-tool-catalog/mcp";
import { describe, expect, it } from "vitest";

const SERVER = path.join(import.meta.dirname, "r44-proto-schema-server.mjs");

const jsonTool = (schemaText: string) =>
  defineTool({ name: "t", description: "T.", inputSchema: JSON.parse(schemaText), handler: (input: unknown) => input });

describe("a JSON Schema field named __proto__, which the validator cannot check", () => {
  it("a host tool's is refused at registration, required or not, nested too; control: an ordinary name", () => {
    for (const text of [
      '{"type":"object","properties":{"__proto__":{"type":"string"}},"required":["__proto__"]}',
      '{"type":"object","properties":{"__proto__":{"type":"string"}}}',
      '{"type":"object","required":["__proto__"]}',
      '{"type":"object","properties":{"outer":{"type":"object","properties":{"__proto__":{"type":"number"}}}}}',
    ]) {
      expect(() => createRegistry({ tools: [jsonTool(text)] }), text).toThrow(ToolDefinitionError);
      expect(() => createRegistry({ tools: [jsonTool(text)] }), text).toThrow(/"__proto__", which the validator cannot check/);
    }
    // Control: an ordinary field in the same shape registers and is checked.
    const run = createRegistry({
      tools: [jsonTool('{"type":"object","properties":{"target":{"type":"string"}},"required":["target"]}')],
    }).createRun();
    return (async () => {
      expect(await run.call("t", { target: 5 })).toMatchObject({ ok: false, error: { code: "invalid_input" } });
      expect(await run.call("t", {})).toMatchObject({ ok: false, error: { code: "invalid_input" } });
      expect(await run.call("t", { target: "x" })).toMatchObject({ ok: true });
    })();
  });

  it("an MCP server's is seen as sent and its tool rejected; control: the same tool with a plain name", async () => {
    const registry = createRegistry();
    try {
      const handle = await connectMcpServer(registry, { name: "odd", command: process.execPath, args: [SERVER] });
      const rejected = handle.status.rejected.map((tool) => [tool.mcpName, tool.reason, tool.message]);
      expect(rejected.map(([name, reason]) => [name, reason]).sort()).toEqual([
        ["loose", "invalid_input_schema"],
        ["proto", "invalid_input_schema"],
      ]);
      for (const [, , message] of rejected) expect(message).toContain('"__proto__", which the validator cannot check');
      expect([...handle.status.tools]).toEqual(["mcp_odd_plain"]);
      const run = registry.createRun({ profile: "full" });
      run.activate(["mcp_odd_plain"]);
      expect(await run.call("mcp_odd_plain", { target: 5 })).toMatchObject({ ok: false, error: { code: "invalid_input" } });
      expect(await run.call("mcp_odd_plain", { target: "staging" })).toMatchObject({ ok: true, output: '{"target":"staging"}' });
    } finally {
      await registry.close();
    }
  }, 20_000);
});
