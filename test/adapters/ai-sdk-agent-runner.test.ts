import type { LanguageModelV3CallOptions, LanguageModelV3Content } from "@ai-sdk/provider";
import { createRegistry, defineTool } from "agent-tool-catalog";
import { createAiSdkAgentRunner } from "agent-tool-catalog/ai-sdk";
import { agentToolGroup } from "agent-tool-catalog/host";
import { MockLanguageModelV3 } from "ai/test";
import { describe, expect, it } from "vitest";
import { z } from "zod";

const usage = {
  inputTokens: { total: 7, noCache: 7, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 3, text: 3, reasoning: 0 },
};

function scripted(steps: ((options: LanguageModelV3CallOptions) => LanguageModelV3Content[])[]) {
  const seen: LanguageModelV3CallOptions[] = [];
  const model = new MockLanguageModelV3({
    doGenerate: async (options) => {
      seen.push(options);
      const step = steps[seen.length - 1];
      if (step === undefined) throw new Error("unexpected model call");
      const content = step(options);
      return {
        content,
        finishReason: { unified: content.some((part) => part.type === "tool-call") ? "tool-calls" : "stop", raw: undefined },
        usage,
        warnings: [],
      };
    },
  });
  return { model, seen };
}

describe("the AI SDK agent runner", () => {
  it("runs a child agent for the agent tool: its own run, allowed tools, depth, an answer for the parent", async () => {
    let depthSeen: unknown;
    const lookup = defineTool({
      name: "lookup",
      description: "Look a word up.",
      inputSchema: z.object({ word: z.string() }),
      handler: ({ word }, context) => {
        depthSeen = context.hostContext.agentDepth;
        return `${word}: a small furry animal`;
      },
    });
    const childRegistry = createRegistry({ tools: [lookup] });
    const child = scripted([
      (options) => {
        expect((options.tools ?? []).map((tool) => tool.name).sort()).toEqual(["find_tool", "lookup"]);
        return [{ type: "tool-call", toolCallId: "c1", toolName: "lookup", input: JSON.stringify({ word: "hamster" }) }];
      },
      () => [{ type: "text", text: "A hamster is a small furry animal." }],
    ]);
    const runner = createAiSdkAgentRunner({ model: child.model, registry: childRegistry });
    const parent = createRegistry({ groups: [agentToolGroup({ runner })] }).createRun({ profile: "full" });
    parent.activate(["agent"]);
    const result = await parent.call("agent", { prompt: "What is a hamster?" });
    expect(result.ok ? String(result.output) : JSON.stringify(result.error)).toContain("A hamster is a small furry animal.");
    expect(depthSeen).toBe(1);
    expect(child.seen).toHaveLength(2);
  });

  it("limits the child to allowedTools and reports usage and steps", async () => {
    const registry = createRegistry({
      tools: [
        defineTool({ name: "a_tool", description: "A.", inputSchema: z.object({}), handler: () => "a" }),
        defineTool({ name: "b_tool", description: "B.", inputSchema: z.object({}), handler: () => "b" }),
      ],
    });
    const child = scripted([
      (options) => {
        expect((options.tools ?? []).map((tool) => tool.name).sort()).toEqual(["a_tool", "find_tool"]);
        return [{ type: "text", text: "done" }];
      },
    ]);
    const runner = createAiSdkAgentRunner({ model: child.model, registry });
    const result = await runner.runPrompt({
      prompt: "go",
      depth: 2,
      allowedTools: ["a_tool"],
      parentRunId: "p",
      scope: registry.createRun({ runId: "p" }).scope(),
      signal: new AbortController().signal,
    });
    expect(result).toEqual({ output: "done", usage: { inputTokens: 7, outputTokens: 3 }, steps: 1 });
  });
});
