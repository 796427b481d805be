/**
 * Red team round 12b: a tool updated on the registry (`handle.update()`, as an MCP server's
 * `list_changed` does) while an AI SDK loop runs. `run.call()` validates against the new schema at
 * once, so the next step must offer the model the new description and schema too; offering the old
 * ones made every call the model wrote from them fail as `invalid_input` for the rest of the loop.
 */
import type { LanguageModelV3CallOptions, LanguageModelV3Content, LanguageModelV3GenerateResult } from "@ai-sdk/provider";
import { createRegistry, defineTool, type RegisteredToolHandle } from "agent-tool-catalog";
import { createAiSdkTools } from "agent-tool-catalog/ai-sdk";
import { generateText, stepCountIs } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { describe, expect, it } from "vitest";
import { z } from "zod";

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 5, text: 5, reasoning: 0 },
};

/** A model that plays one step per entry and keeps (a deep copy of) the tools each step offered. */
function scripted(steps: LanguageModelV3Content[][]) {
  const offered: { name: string; description?: string; inputSchema?: unknown }[][] = [];
  const prompts: LanguageModelV3CallOptions["prompt"][] = [];
  const model = new MockLanguageModelV3({
    doGenerate: async (options): Promise<LanguageModelV3GenerateResult> => {
      offered.push(JSON.parse(JSON.stringify(options.tools ?? [])));
      prompts.push(options.prompt);
      const content = steps[prompts.length - 1] ?? [{ type: "text", text: "done" }];
      const calls = content.some((part) => part.type === "tool-call");
      return { content, finishReason: { unified: calls ? "tool-calls" : "stop", raw: undefined }, usage, warnings: [] };
    },
  });
  const offeredTool = (step: number, name: string) => offered[step]?.find((tool) => tool.name === name);
  const output = (step: number, callId: string) => {
    for (const message of prompts[step] ?? []) {
      if (message.role !== "tool") continue;
      for (const part of message.content) if (part.type === "tool-result" && part.toolCallId === callId) return part.output;
    }
    return undefined;
  };
  return { model, offeredTool, output };
}

const call = (id: string, name: string, input: unknown): LanguageModelV3Content => ({
  type: "tool-call",
  toolCallId: id,
  toolName: name,
  input: JSON.stringify(input),
});

describe("a tool updated on the registry during an AI SDK loop", () => {
  it("is offered with its new description and schema from the next step, and a call written from them runs", async () => {
    const registry = createRegistry();
    const lookup: RegisteredToolHandle = registry.register(
      defineTool({
        name: "lookup",
        description: "Looks up a record by id.",
        inputSchema: z.object({ id: z.string() }),
        handler: ({ id }) => `found ${id}`,
      }),
    );
    registry.register(
      defineTool({
        name: "stable",
        description: "Never changes.",
        inputSchema: z.object({ n: z.number() }),
        handler: ({ n }) => `stable ${n}`,
      }),
    );
    registry.register(
      defineTool({
        name: "migrate",
        description: "Migrates the records to keys.",
        inputSchema: z.object({}),
        handler: () => {
          // Mid-step, as a connected MCP server's tool list changes.
          lookup.update(
            defineTool({
              name: "lookup",
              description: "Looks up a record by key.",
              inputSchema: z.object({ key: z.string() }),
              handler: ({ key }) => `found key ${key}`,
            }),
          );
          return "migrated";
        },
      }),
    );
    const run = registry.createRun({});
    const { model, offeredTool, output } = scripted([
      [call("m", "migrate", {})],
      [call("l", "lookup", { key: "k1" }), call("s", "stable", { n: 1 })],
    ]);
    const { tools, prepareStep } = createAiSdkTools(run);
    await generateText({ model, tools, prepareStep, stopWhen: stepCountIs(4), prompt: "go" });

    expect(offeredTool(0, "lookup")).toMatchObject({
      description: "Looks up a record by id.",
      inputSchema: { properties: { id: { type: "string" } }, required: ["id"] },
    });
    // The step after the update offers what run.call() now checks against.
    const updated = run.definitions().find((descriptor) => descriptor.name === "lookup");
    expect(offeredTool(1, "lookup")).toEqual(
      expect.objectContaining({ description: updated?.description, inputSchema: updated?.inputSchema }),
    );
    expect(offeredTool(1, "lookup")?.description).toBe("Looks up a record by key.");
    expect(output(2, "l")).toEqual({ type: "text", value: "found key k1" });
    // Control: the tool that did not change is offered as before and runs.
    expect(offeredTool(1, "stable")).toEqual(offeredTool(0, "stable"));
    expect(offeredTool(1, "stable")?.description).toBe("Never changes.");
    expect(output(2, "s")).toEqual({ type: "text", value: "stable 1" });
  });
});
