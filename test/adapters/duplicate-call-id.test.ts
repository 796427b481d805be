/**
 * A model step that carries one provider call id twice ran the tool twice (twice the side effects
 * of a mutating tool) for one answer the provider can match. The second call with the id is now
 * answered with `duplicate_call_id` and not run: by the AI SDK tools while a call with that id is
 * running (the SDK runs a step's calls in parallel), and by the Anthropic and OpenAI batch runners
 * for ids repeated in one message (they run calls one after the other). `run.call` itself still
 * takes a shared host-given `callId` (test/redteam/otel-shared-call-id.test.ts).
 */
import type {
  LanguageModelV3CallOptions,
  LanguageModelV3Content,
  LanguageModelV3GenerateResult,
  LanguageModelV3StreamPart,
} from "@ai-sdk/provider";
import { createRegistry, defineTool, type Run } from "agent-tool-catalog";
import { createAiSdkTools } from "agent-tool-catalog/ai-sdk";
import { runAnthropicToolUses } from "agent-tool-catalog/anthropic";
import { runOpenAIChatToolCalls, runOpenAIResponsesFunctionCalls } from "agent-tool-catalog/openai";
import { generateText, stepCountIs, streamText } from "ai";
import { convertArrayToReadableStream, MockLanguageModelV3 } from "ai/test";
import { describe, expect, it } from "vitest";
import { z } from "zod";

function counted(): { run: Run; ran: number[] } {
  const ran: number[] = [];
  const append = defineTool({
    name: "append",
    description: "Appends a number.",
    tier: "core",
    mutating: true,
    inputSchema: z.object({ n: z.number() }),
    handler: async ({ n }) => {
      ran.push(n);
      await new Promise((resolve) => setTimeout(resolve, 5));
      return `appended ${n}`;
    },
  });
  return { run: createRegistry({ tools: [append] }).createRun({ permissions: { approval: "none" } }), ran };
}

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 5, text: 5, reasoning: 0 },
};

async function aiSdkStep(ids: readonly string[]): Promise<{ ran: number[]; outputs: string[] }> {
  const { run, ran } = counted();
  const seen: LanguageModelV3CallOptions[] = [];
  const model = new MockLanguageModelV3({
    doGenerate: async (options): Promise<LanguageModelV3GenerateResult> => {
      seen.push(options);
      const content: LanguageModelV3Content[] =
        seen.length === 1
          ? ids.map((id, n) => ({ type: "tool-call", toolCallId: id, toolName: "append", input: JSON.stringify({ n }) }))
          : [{ type: "text", text: "done" }];
      const calls = content.some((part) => part.type === "tool-call");
      return { content, finishReason: { unified: calls ? "tool-calls" : "stop", raw: undefined }, usage, warnings: [] };
    },
  });
  const { tools, prepareStep } = createAiSdkTools(run);
  await generateText({ model, tools, prepareStep, stopWhen: stepCountIs(3), prompt: "append" });
  const outputs: string[] = [];
  for (const message of seen[1]?.prompt ?? []) {
    if (message.role !== "tool") continue;
    for (const part of message.content) if (part.type === "tool-result") outputs.push(JSON.stringify(part.output));
  }
  return { ran, outputs };
}

/** The tool results a model request carries, as JSON. */
function toolResults(options: LanguageModelV3CallOptions): string[] {
  const outputs: string[] = [];
  for (const message of options.prompt) {
    if (message.role !== "tool") continue;
    for (const part of message.content) if (part.type === "tool-result") outputs.push(JSON.stringify(part.output));
  }
  return outputs;
}

describe("one provider call id twice in one step", () => {
  it("AI SDK (parallel): the tool runs once; the second call is answered duplicate_call_id", async () => {
    const { ran, outputs } = await aiSdkStep(["c1", "c1"]);
    expect(ran).toEqual([0]);
    expect(outputs.join("\n")).toContain("appended 0");
    expect(outputs.join("\n")).toContain("duplicate_call_id");
  });

  it("control, AI SDK: distinct ids both run", async () => {
    const { ran, outputs } = await aiSdkStep(["c1", "c2"]);
    expect(ran.sort()).toEqual([0, 1]);
    expect(outputs.join("\n")).not.toContain("duplicate_call_id");
  });

  it("Anthropic: the second tool_use with the id is an is_error duplicate_call_id result, not run", async () => {
    const { run, ran } = counted();
    const use = (id: string, n: number) => ({ type: "tool_use", id, name: "append", input: { n } }) as const;
    const results = await runAnthropicToolUses(run, [use("toolu_1", 0), use("toolu_1", 1), use("toolu_2", 2)]);
    expect(ran).toEqual([0, 2]);
    expect(results.map((result) => result.tool_use_id)).toEqual(["toolu_1", "toolu_1", "toolu_2"]);
    expect(results[1]?.is_error).toBe(true);
    expect(JSON.stringify(results[1])).toContain("duplicate_call_id");
    expect(JSON.stringify(results[2])).toContain("appended 2");
  });

  it("OpenAI Chat Completions and Responses: the second call with the id is answered duplicate_call_id, not run", async () => {
    const chat = counted();
    const fn = (id: string, n: number) =>
      ({ id, type: "function", function: { name: "append", arguments: JSON.stringify({ n }) } }) as const;
    const messages = await runOpenAIChatToolCalls(chat.run, [fn("call_1", 0), fn("call_1", 1), fn("call_2", 2)]);
    expect(chat.ran).toEqual([0, 2]);
    expect(JSON.stringify(messages[1])).toContain("duplicate_call_id");

    const responses = counted();
    const item = (callId: string, n: number) =>
      ({ type: "function_call", call_id: callId, name: "append", arguments: JSON.stringify({ n }) }) as const;
    const outputs = await runOpenAIResponsesFunctionCalls(responses.run, [item("fc_1", 0), item("fc_1", 1), item("fc_2", 2)]);
    expect(responses.ran).toEqual([0, 2]);
    expect(JSON.stringify(outputs[1])).toContain("duplicate_call_id");
  });

  it("control: the same id in a later step (a new message) runs again", async () => {
    const { run, ran } = counted();
    const use = { type: "tool_use", id: "toolu_1", name: "append", input: { n: 7 } } as const;
    await runAnthropicToolUses(run, [use]);
    await runAnthropicToolUses(run, [use]);
    expect(ran).toEqual([7, 7]);
  });

  it("AI SDK: two conversations at once on one tool set, each with call_0, both run", async () => {
    const { run, ran } = counted();
    const { tools } = createAiSdkTools(run);
    const outputs: string[] = [];
    const conversation = (n: number) => {
      let turn = 0;
      const model = new MockLanguageModelV3({
        doGenerate: async (options): Promise<LanguageModelV3GenerateResult> => {
          turn++;
          outputs.push(...toolResults(options));
          // The handler waits 5 ms and both conversations start together, so the two call_0 calls overlap.
          const content: LanguageModelV3Content[] =
            turn === 1
              ? [{ type: "tool-call", toolCallId: "call_0", toolName: "append", input: JSON.stringify({ n }) }]
              : [{ type: "text", text: "done" }];
          return { content, finishReason: { unified: turn === 1 ? "tool-calls" : "stop", raw: undefined }, usage, warnings: [] };
        },
      });
      return generateText({ model, tools, stopWhen: stepCountIs(3), prompt: "append" });
    };
    await Promise.all([conversation(1), conversation(2)]);
    expect(ran.sort()).toEqual([1, 2]);
    expect(outputs.join("\n")).not.toContain("duplicate_call_id");
    expect(outputs.join("\n")).toContain("appended 1");
    expect(outputs.join("\n")).toContain("appended 2");
  });

  it("AI SDK: the same id in the next step of one conversation runs again", async () => {
    const { run, ran } = counted();
    const { tools } = createAiSdkTools(run);
    let turn = 0;
    const model = new MockLanguageModelV3({
      doGenerate: async (): Promise<LanguageModelV3GenerateResult> => {
        turn++;
        const content: LanguageModelV3Content[] =
          turn <= 2
            ? [{ type: "tool-call", toolCallId: "call_0", toolName: "append", input: JSON.stringify({ n: turn }) }]
            : [{ type: "text", text: "done" }];
        return { content, finishReason: { unified: turn <= 2 ? "tool-calls" : "stop", raw: undefined }, usage, warnings: [] };
      },
    });
    await generateText({ model, tools, stopWhen: stepCountIs(4), prompt: "append" });
    expect(ran).toEqual([1, 2]);
  });

  it("AI SDK streamText: one id twice in a step is refused; two conversations at once with call_0 both run", async () => {
    const { run, ran } = counted();
    const { tools } = createAiSdkTools(run);
    const conversation = (ids: readonly number[]) => {
      let turn = 0;
      const model = new MockLanguageModelV3({
        doStream: async () => {
          turn++;
          const parts: LanguageModelV3StreamPart[] =
            turn === 1
              ? ids.map((n) => ({ type: "tool-call", toolCallId: "call_0", toolName: "append", input: JSON.stringify({ n }) }))
              : [
                  { type: "text-start", id: "t" },
                  { type: "text-delta", id: "t", delta: "done" },
                  { type: "text-end", id: "t" },
                ];
          const finish: LanguageModelV3StreamPart = {
            type: "finish",
            finishReason: { unified: turn === 1 ? "tool-calls" : "stop", raw: undefined },
            usage,
          };
          return { stream: convertArrayToReadableStream([{ type: "stream-start", warnings: [] }, ...parts, finish]) };
        },
      });
      return streamText({ model, tools, stopWhen: stepCountIs(3), prompt: "append" }).text;
    };
    // Two conversations at once (1, 2), and one step with the id twice (3 runs, 4 does not).
    await Promise.all([conversation([1]), conversation([2]), conversation([3, 4])]);
    expect(ran.sort()).toEqual([1, 2, 3]);
  });
});
