/**
 * Red team round 39 (a variant of the call-options finding): the adapters' batch runners and
 * `createAiSdkTools` checked `maxMediaBytes` where it was given, then read it again for every
 * result. A getter answering `0` to the check and `NaN` later sent every image whatever its size
 * (the very `NaN` the check was made to refuse: it compares false with every size); one throwing
 * on a later read rejected the batch after its first call had run, so no call of it got an answer.
 */

import { createAiSdkTools } from "agent-tool-catalog/ai-sdk";
import { anthropicToolLoop, runAnthropicToolUses } from "agent-tool-catalog/anthropic";
import { runOpenAIChatToolCalls, runOpenAIResponsesFunctionCalls } from "agent-tool-catalog/openai";
import { generateText, stepCountIs } from "ai";
import { describe, expect, it } from "vitest";
import { PNG, plainRun, toolCallThenDoneModel } from "../adapters/adapter-fixtures.js";

/** Options whose `field` answers `first` once, then `later()` (which may throw) at every read after. */
function flipping(field: string, first: unknown, later: () => unknown): Record<string, unknown> {
  let reads = 0;
  return Object.defineProperty({}, field, {
    enumerable: true,
    get: () => (reads++ === 0 ? first : later()),
  });
}

/** Options that pass the check with `maxMediaBytes: 0` (no media) and answer `NaN` after it. */
const zeroThenNaN = () => flipping("maxMediaBytes", 0, () => Number.NaN);
/** Options whose `signal` reads once, then throws. */
const signalThenThrow = () =>
  flipping("signal", undefined, () => {
    throw new Error("second read of signal");
  });

const anthropicUses = [
  { type: "tool_use", id: "toolu_1", name: "screenshot", input: {} },
  { type: "tool_use", id: "toolu_2", name: "echo", input: { text: "two" } },
] as const;
const chatCalls = [
  { id: "call_1", type: "function", function: { name: "screenshot", arguments: "{}" } },
  { id: "call_2", type: "function", function: { name: "echo", arguments: '{"text":"two"}' } },
] as const;
const responsesItems = [
  { type: "function_call", call_id: "call_1", name: "screenshot", arguments: "{}" },
  { type: "function_call", call_id: "call_2", name: "echo", arguments: '{"text":"two"}' },
] as const;

const runners: [string, (options: Record<string, unknown>) => Promise<unknown>][] = [
  ["runAnthropicToolUses", (options) => runAnthropicToolUses(plainRun(), anthropicUses as never, options)],
  ["runOpenAIChatToolCalls", (options) => runOpenAIChatToolCalls(plainRun(), chatCalls as never, options)],
  ["runOpenAIResponsesFunctionCalls", (options) => runOpenAIResponsesFunctionCalls(plainRun(), responsesItems as never, options)],
];

describe("adapter options are read once: what was checked is what is used", () => {
  for (const [label, runBatch] of runners) {
    it(`${label}: maxMediaBytes checked as 0 sends no image, whatever a later read says`, async () => {
      const text = JSON.stringify(await runBatch(zeroThenNaN()));
      expect(text).toContain("two");
      expect(text).not.toContain(PNG);
      // Control: with no limit given, the image is sent.
      expect(JSON.stringify(await runBatch({}))).toContain(PNG);
    });

    it(`${label}: a signal getter that throws on its second read does not lose the batch`, async () => {
      const answered = await runBatch(signalThenThrow()).then(
        (value) => JSON.stringify(value),
        (error: unknown) => `rejected: ${String(error)}`,
      );
      expect(answered).not.toMatch(/^rejected/);
      expect(answered).toContain("two");
    });
  }

  it("anthropicToolLoop: maxMediaBytes checked as 0 sends no image on a later turn", async () => {
    const sent: unknown[] = [];
    let turn = 0;
    const client = {
      messages: {
        create: async (params: { messages: unknown[] }) => {
          sent.push(structuredClone(params.messages));
          turn++;
          return turn === 1
            ? { id: "m1", role: "assistant", content: [anthropicUses[0]], stop_reason: "tool_use", model: "m", type: "message" }
            : {
                id: "m2",
                role: "assistant",
                content: [{ type: "text", text: "done" }],
                stop_reason: "end_turn",
                model: "m",
                type: "message",
              };
        },
      },
    };
    const base = { client, model: "m", messages: [{ role: "user", content: "Look." }] };
    let reads = 0;
    const options = Object.defineProperty({ ...base }, "maxMediaBytes", {
      enumerable: true,
      get: () => (reads++ === 0 ? 0 : Number.NaN),
    });
    await anthropicToolLoop(plainRun(), options as never);
    expect(JSON.stringify(sent)).not.toContain(PNG);
    // Control: the same loop without the limit sends the image.
    sent.length = 0;
    turn = 0;
    await anthropicToolLoop(plainRun(), base as never);
    expect(JSON.stringify(sent)).toContain(PNG);
  });

  it("createAiSdkTools: maxMediaBytes checked as 0 sends no image through generateText", async () => {
    const { model, seen } = toolCallThenDoneModel("screenshot", "{}");
    const { tools, prepareStep } = createAiSdkTools(plainRun(), zeroThenNaN() as never);
    await generateText({ model, tools, prepareStep, stopWhen: stepCountIs(3), prompt: "Look." });
    expect(JSON.stringify(seen[1]?.prompt)).not.toContain(PNG);
    const control = toolCallThenDoneModel("screenshot", "{}");
    const plain = createAiSdkTools(plainRun());
    await generateText({
      model: control.model,
      tools: plain.tools,
      prepareStep: plain.prepareStep,
      stopWhen: stepCountIs(3),
      prompt: "Look.",
    });
    expect(JSON.stringify(control.seen[1]?.prompt)).toContain(PNG);
  });
});
