/**
 * Red team round 13: a "__proto__" key in a zod 4 input schema and in a tool output reaching the
 * model through the AI SDK. A zod 4 input schema with a field named "__proto__" (a valid JSON Schema
 * property name, round 12b). The pass that drops zod's ±2^53 bounds of `.int()` copied every
 * object by assignment, so the field vanished from `properties` while `required` still named
 * it: the model was told to send a field it was never described.
 */
import type { LanguageModelV3CallOptions, LanguageModelV3GenerateResult } from "@ai-sdk/provider";
import { createRegistry, defineTool } from "agent-tool-catalog";
import { createAiSdkTools } from "agent-tool-catalog/ai-sdk";
import { generateText, stepCountIs } from "ai";
import { MockLanguageModelV3 } from "ai/test";
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

describe("a tool output with a __proto__ key, through the AI SDK", () => {
  // toModelOutput copied the output into plain JSON by assignment: the key was dropped from what
  // the model read, though the run's own result held it.
  it("reaches the model with the key", async () => {
    const tool = defineTool({
      name: "lookup",
      description: "Look up.",
      tier: "core",
      inputSchema: z.object({}),
      handler: () => JSON.parse('{"__proto__":{"owner":"alice"},"found":true}') as unknown,
    });
    const { tools, prepareStep } = createAiSdkTools(createRegistry({ tools: [tool] }).createRun({}));
    const usage = {
      inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
      outputTokens: { total: 1, text: 1, reasoning: 0 },
    };
    const seen: LanguageModelV3CallOptions[] = [];
    const model = new MockLanguageModelV3({
      doGenerate: async (options): Promise<LanguageModelV3GenerateResult> => {
        seen.push(options);
        const content =
          seen.length === 1
            ? [{ type: "tool-call" as const, toolCallId: "l", toolName: "lookup", input: "{}" }]
            : [{ type: "text" as const, text: "done" }];
        return {
          content,
          finishReason: { unified: seen.length === 1 ? "tool-calls" : "stop", raw: undefined },
          usage,
          warnings: [],
        };
      },
    });
    await generateText({ model, tools, prepareStep, stopWhen: stepCountIs(3), prompt: "go" });
    const results = (seen[1]?.prompt ?? []).flatMap((message) =>
      message.role === "tool" ? message.content.filter((part) => part.type === "tool-result") : [],
    );
    const output = results[0]?.output as { type: string; value: Record<string, unknown> } | undefined;
    expect(output?.type).toBe("json");
    expect(JSON.stringify(output?.value)).toBe('{"__proto__":{"owner":"alice"},"found":true}');
  });
});
