// A handler's output JSON cannot hold (a BigInt, a cycle, a throwing getter or toJSON) comes back
// `ok: true`; the adapters must still answer every call of the batch, and never throw.
import { createAiSdkTools } from "agent-tool-catalog/ai-sdk";
import { anthropicToolResult, runAnthropicToolUses } from "agent-tool-catalog/anthropic";
import { runOpenAIChatToolCalls, runOpenAIResponsesFunctionCalls } from "agent-tool-catalog/openai";
import { describe, expect, it } from "vitest";
import { plainRun } from "./adapter-fixtures.js";

const NAMES = ["echo", "bigint", "circular", "hostile", "echo"] as const;
const args = (name: string) => (name === "echo" ? '{"text":"still here"}' : "{}");
const EXPECTED = [
  "still here",
  '{"count":"100000000000000000000"}',
  '{"self":"[Circular]"}',
  '{"fine":1,"secret":"[Unserializable]","nested":"[Unserializable]"}',
  "still here",
];

describe("hostile outputs never lose the batch", () => {
  it("Anthropic: every tool_use gets its tool_result", async () => {
    const content = NAMES.map((name, index) => ({ type: "tool_use", id: `toolu_${index}`, name, input: JSON.parse(args(name)) }));
    const results = await runAnthropicToolUses(plainRun(), content);
    expect(results.map((result) => result.tool_use_id)).toEqual(NAMES.map((_, index) => `toolu_${index}`));
    expect(results.map((result) => result.content)).toEqual(EXPECTED);
    expect(results.every((result) => result.is_error === undefined)).toBe(true);
  });

  it("OpenAI Chat: every tool call gets its tool message", async () => {
    const calls = NAMES.map((name, index) => ({
      id: `call_${index}`,
      type: "function",
      function: { name, arguments: args(name) },
    }));
    const messages = await runOpenAIChatToolCalls(plainRun(), calls);
    expect(messages.map((message) => message.content)).toEqual(EXPECTED);
  });

  it("OpenAI Responses: every function_call gets its output", async () => {
    const output = NAMES.map((name, index) => ({ type: "function_call", call_id: `call_${index}`, name, arguments: args(name) }));
    const items = await runOpenAIResponsesFunctionCalls(plainRun(), output);
    expect(items.map((item) => item.output)).toEqual(EXPECTED);
  });

  it("AI SDK: toModelOutput makes the output plain JSON", async () => {
    const { tools } = createAiSdkTools(plainRun());
    const outputs = [];
    for (const name of ["bigint", "circular", "hostile"]) {
      const tool = tools[name];
      const output = await tool?.execute?.({}, { toolCallId: name, messages: [] });
      outputs.push(await tool?.toModelOutput?.({ toolCallId: name, input: {}, output }));
    }
    expect(outputs).toEqual([
      { type: "json", value: { count: "100000000000000000000" } },
      { type: "json", value: { self: "[Circular]" } },
      { type: "json", value: { fine: 1, secret: "[Unserializable]", nested: "[Unserializable]" } },
    ]);
  });

  it("a call that rejects (a closed run) is answered with tool_failed, in every adapter", async () => {
    const run = plainRun();
    await run.close();
    const toolUse = { type: "tool_use", id: "toolu_1", name: "echo", input: { text: "x" } };
    const functionCall = { type: "function_call", call_id: "c", name: "echo", arguments: "{}" };
    const [anthropic] = await runAnthropicToolUses(run, [toolUse]);
    const [chat] = await runOpenAIChatToolCalls(run, [
      { id: "c", type: "function", function: { name: "echo", arguments: "{}" } },
    ]);
    const [responses] = await runOpenAIResponsesFunctionCalls(run, [functionCall]);
    for (const text of [anthropic?.content, chat?.content, responses?.output]) {
      expect(JSON.parse(String(text))).toMatchObject({ error: { code: expect.any(String) } });
    }
    expect(anthropic?.is_error).toBe(true);
  });
});

describe("a hand-made hostile result (not from run.call) never throws in an adapter", () => {
  interface Cycle {
    self?: Cycle;
  }
  const cycle: Cycle = {};
  cycle.self = cycle;
  const hostile = {
    get boom(): string {
      throw new Error("no");
    },
  };
  it.each([
    ["a BigInt", 10n, '"10"'],
    ["a cycle", cycle, '{"self":"[Circular]"}'],
    ["a throwing getter", hostile, '{"boom":"[Unserializable]"}'],
  ])("%s", (_label, output, text) => {
    const block = anthropicToolResult("toolu_1", { ok: true, tool: "t", callId: "c", output });
    expect(block.content).toBe(text);
  });
});
