/**
 * Red team round 12b: a model sends arguments nested thousands of levels deep to a tool whose
 * schema is recursive (a tree, a linked list). The validators (ajv for JSON Schema, zod) walk them
 * recursively and overflow the stack; the model was told the tool "has an unusable input schema",
 * i.e. that the tool is broken, when its own input was at fault. It must get `invalid_input`
 * saying how deep its arguments are.
 */
import { createRegistry, defineTool } from "agent-tool-catalog";
import { type AnthropicToolUseBlock, runAnthropicToolUses } from "agent-tool-catalog/anthropic";
import { runOpenAIChatToolCalls } from "agent-tool-catalog/openai";
import { describe, expect, it } from "vitest";
import { z } from "zod";

interface Node {
  next?: Node | undefined;
  label?: string | undefined;
}
const node: z.ZodType<Node> = z.lazy(() => z.object({ next: node.optional(), label: z.string().optional() }));

function registry() {
  return createRegistry({
    tools: [
      defineTool({
        name: "json_chain",
        description: "Takes a chain of nodes (JSON Schema, recursive).",
        inputSchema: { type: "object", properties: { next: { $ref: "#" }, label: { type: "string" } } },
        handler: () => "took the chain",
      }),
      defineTool({
        name: "zod_chain",
        description: "Takes a chain of nodes (zod, recursive).",
        inputSchema: node as z.ZodType<Node, Node>,
        handler: () => "took the chain",
      }),
      defineTool({
        name: "broken_ref",
        description: "Its schema points nowhere.",
        inputSchema: { type: "object", properties: { next: { $ref: "#missing-anchor" } } },
        handler: () => "never",
      }),
    ],
  });
}

const chain = (depth: number) => `${'{"next":'.repeat(depth)}{"label":"end"}${"}".repeat(depth)}`;

describe("deeply nested arguments for a recursive schema", () => {
  it("are invalid_input naming the depth, through run.call and a provider adapter", async () => {
    const run = registry().createRun();
    for (const name of ["json_chain", "zod_chain"]) {
      const result = await run.call(name, chain(20_000));
      expect(result).toMatchObject({
        ok: false,
        error: {
          code: "invalid_input",
          message: expect.stringContaining("nested 20001 levels deep"),
          issues: [{ path: "", message: "nested 20001 levels deep" }],
        },
      });
    }
    const [chat] = await runOpenAIChatToolCalls(run, [
      { id: "c1", type: "function", function: { name: "zod_chain", arguments: chain(20_000) } },
    ]);
    expect(JSON.parse(String(chat?.content))).toMatchObject({ error: { code: "invalid_input" } });
  });

  it("controls: a chain a few hundred levels deep is taken; a schema that cannot compile is still the tool's fault", async () => {
    const run = registry().createRun();
    for (const name of ["json_chain", "zod_chain"]) {
      expect(await run.call(name, chain(300))).toMatchObject({ ok: true, output: "took the chain" });
    }
    const [anthropic] = await runAnthropicToolUses(run, [
      { type: "tool_use", id: "a1", name: "json_chain", input: JSON.parse(chain(300)) } as AnthropicToolUseBlock,
    ]);
    expect(anthropic).toMatchObject({ tool_use_id: "a1", content: "took the chain" });
    expect(await run.call("broken_ref", chain(2))).toMatchObject({
      ok: false,
      error: { code: "tool_failed", message: expect.stringContaining("unusable input schema") },
    });
  });
});
