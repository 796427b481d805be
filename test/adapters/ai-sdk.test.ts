import type { LanguageModelV3CallOptions, LanguageModelV3Content, LanguageModelV3GenerateResult } from "@ai-sdk/provider";
import { createRegistry, defineTool, type Registry, type Run } from "agent-tool-catalog";
import { createAiSdkTools } from "agent-tool-catalog/ai-sdk";
import { generateText, type ModelMessage, stepCountIs } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { deferredDeleteNoteTool } from "../support/note-tools.js";

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 5, text: 5, reasoning: 0 },
};

function toolCall(id: string, name: string, input: unknown): LanguageModelV3Content {
  return { type: "tool-call", toolCallId: id, toolName: name, input: JSON.stringify(input) };
}

/** A mock model that plays one step per entry and records what it was sent. */
function scriptedModel(steps: ((options: LanguageModelV3CallOptions) => LanguageModelV3Content[])[]) {
  const seen: LanguageModelV3CallOptions[] = [];
  const model = new MockLanguageModelV3({
    doGenerate: async (options): Promise<LanguageModelV3GenerateResult> => {
      seen.push(options);
      const step = steps[seen.length - 1];
      if (step === undefined) throw new Error(`unexpected model call ${seen.length}`);
      const content = step(options);
      const calls = content.some((part) => part.type === "tool-call");
      return { content, finishReason: { unified: calls ? "tool-calls" : "stop", raw: undefined }, usage, warnings: [] };
    },
  });
  const toolNames = (index: number) => (seen[index]?.tools ?? []).map((entry) => entry.name).sort();
  return { model, seen, toolNames, steps };
}

/** The text of the last tool result the model was sent. */
function lastToolResult(options: LanguageModelV3CallOptions): string {
  const tool = [...options.prompt].reverse().find((message) => message.role === "tool");
  return JSON.stringify(tool?.content ?? null);
}

function catalog(): { registry: Registry; deleted: string[] } {
  const deleted: string[] = [];
  const registry = createRegistry({
    tools: [
      defineTool({
        name: "read_note",
        description: "Read a note.",
        inputSchema: z.object({ title: z.string() }),
        handler: ({ title }) => `note ${title}`,
      }),
      deferredDeleteNoteTool(deleted),
      defineTool({
        name: "weather_forecast",
        description: "Weather forecast for a city.",
        tier: "deferred",
        inputSchema: z.object({ city: z.string() }),
        handler: ({ city }) => ({ city, sky: "sunny" }),
      }),
    ],
  });
  return { registry, deleted };
}

/**
 * The SDK's approval flow (`approvalFlow: "ai-sdk"`) for one call: the model asks to delete
 * "groceries", and the first `generateText` must end with a tool-approval-request. `answer` sends
 * the host's response in a second `generateText`, where the model's next step is `next`.
 */
async function askToDeleteGroceries(run: Run, next: (options: LanguageModelV3CallOptions) => LanguageModelV3Content[]) {
  const script = scriptedModel([() => [toolCall("c1", "delete_note", { title: "groceries" })], next]);
  const { tools, prepareStep } = createAiSdkTools(run, { approvalFlow: "ai-sdk" });
  const first = await generateText({
    model: script.model,
    tools,
    prepareStep,
    stopWhen: stepCountIs(5),
    prompt: "delete groceries",
  });
  const request = first.content.find((part) => part.type === "tool-approval-request");
  expect(request?.type).toBe("tool-approval-request");
  const answer = (response: { approved: boolean; reason?: string }) => {
    const messages: ModelMessage[] = [
      { role: "user", content: "delete groceries" },
      ...first.response.messages,
      {
        role: "tool",
        content: [
          {
            type: "tool-approval-response",
            approvalId: request?.type === "tool-approval-request" ? request.approvalId : "",
            ...response,
          },
        ],
      },
    ];
    return generateText({ model: script.model, tools, prepareStep, stopWhen: stepCountIs(5), messages });
  };
  return { answer };
}

describe("AI SDK adapter with a real generateText loop", () => {
  it("discovers and activates within one loop, gets a denied approval as a result, then calls a tool", async () => {
    const { registry, deleted } = catalog();
    registry.events.on("approval.requested", (request) => registry.approvals.deny(request.id, "the user keeps their notes"));
    const run = registry.createRun({ permissions: { approval: "destructive" } });
    const script = scriptedModel([
      () => [toolCall("c1", "find_tool", { query: "select:delete_note,weather_forecast" })],
      () => [toolCall("c2", "delete_note", { title: "groceries" })],
      (options) => {
        expect(lastToolResult(options)).toContain("approval_denied");
        expect(lastToolResult(options)).toContain("the user keeps their notes");
        return [toolCall("c3", "weather_forecast", { city: "Lisbon" })];
      },
      (options) => {
        expect(lastToolResult(options)).toContain("sunny");
        return [{ type: "text", text: "It is sunny in Lisbon." }];
      },
    ]);
    const { tools, prepareStep } = createAiSdkTools(run);
    const result = await generateText({ model: script.model, tools, prepareStep, stopWhen: stepCountIs(10), prompt: "hi" });
    expect(result.text).toBe("It is sunny in Lisbon.");
    expect(script.seen).toHaveLength(4);
    expect(script.toolNames(0)).toEqual(["find_tool", "read_note"]);
    expect(script.toolNames(1)).toEqual(["delete_note", "find_tool", "read_note", "weather_forecast"]);
    expect(deleted).toEqual([]);
  });

  it("returns validation errors and hidden-tool errors as tool results, not exceptions", async () => {
    // A call of an inactive tool is answered by the SDK itself (activeTools), listing find_tool.
    const { registry } = catalog();
    const run = registry.createRun();
    const script = scriptedModel([
      () => [toolCall("c1", "weather_forecast", { city: "Lisbon" }), toolCall("c2", "read_note", { title: 3 })],
      (options) => {
        const results = lastToolResult(options);
        expect(results).toContain("unavailable tool 'weather_forecast'. Available tools: find_tool, read_note");
        expect(results).toContain("invalid_input");
        return [{ type: "text", text: "ok" }];
      },
    ]);
    const { tools, prepareStep } = createAiSdkTools(run);
    const result = await generateText({ model: script.model, tools, prepareStep, stopWhen: stepCountIs(5), prompt: "hi" });
    expect(result.text).toBe("ok");
  });

  it("maps approvals to the SDK's own flow: tool-approval-request, then a denial response", async () => {
    const { registry, deleted } = catalog();
    const run = registry.createRun({ permissions: { approval: "destructive" } });
    run.activate(["delete_note"]);
    const { answer } = await askToDeleteGroceries(run, (options) => {
      expect(lastToolResult(options)).toContain("execution-denied");
      return [{ type: "text", text: "Understood, not deleting." }];
    });
    expect(registry.approvals.pending()).toEqual([]);
    const second = await answer({ approved: false, reason: "no" });
    expect(second.text).toBe("Understood, not deleting.");
    expect(deleted).toEqual([]);
  });

  it("runs the tool once the host approves in the SDK's flow, without asking the run's broker again", async () => {
    const { registry, deleted } = catalog();
    const run = registry.createRun({ permissions: { approval: "destructive" } });
    run.activate(["delete_note"]);
    const asked: string[] = [];
    registry.events.on("approval.requested", (event) => asked.push(event.toolName));
    const { answer } = await askToDeleteGroceries(run, (options) => {
      expect(lastToolResult(options)).toContain("deleted groceries");
      return [{ type: "text", text: "Deleted." }];
    });
    // Nothing ran before the host's answer.
    expect(deleted).toEqual([]);
    const second = await answer({ approved: true });
    expect(second.text).toBe("Deleted.");
    expect(deleted).toEqual(["groceries"]);
    expect(asked).toEqual([]);
    expect(registry.approvals.pending()).toEqual([]);
  });
});
