/**
 * The adapters' numeric options against hostile values, refused where they are given
 * (`invalid_option` naming the option). Before: `maxMediaBytes: NaN` compared false with every
 * size, so every image and file was sent whatever its size; `createAiSdkAgentRunner({ maxSteps:
 * 1.5 })` never matched a step count, so a child agent's loop never stopped on it; the Anthropic
 * loop's `maxTokens: 0` failed only at the API's first request; `runToolLoop({ maxTurns: NaN })`
 * ran no turn. Positive controls: 0 and Infinity where documented, in real calls.
 */
import { createRegistry } from "agent-tool-catalog";
import { createAiSdkAgentRunner, createAiSdkTools } from "agent-tool-catalog/ai-sdk";
import { anthropicToolLoop, runAnthropicToolUses } from "agent-tool-catalog/anthropic";
import { runOpenAIChatToolCalls, runOpenAIResponsesFunctionCalls } from "agent-tool-catalog/openai";
import { runToolLoop, ScriptedModel } from "agent-tool-catalog/testing";
import { describe, expect, it } from "vitest";
import { plainRun } from "../adapters/adapter-fixtures.js";
import { type DocumentedRule, expectRuleHolds } from "../support/hostile-options.js";

const MEDIA: DocumentedRule = { min: 0, integer: true, infinite: true };
const run = () => createRegistry().createRun();

/** An Anthropic client that ends the conversation at once. */
const endingClient = {
  messages: {
    create: async () => ({
      id: "msg_1",
      type: "message",
      role: "assistant",
      model: "m",
      content: [{ type: "text", text: "done" }],
      stop_reason: "end_turn",
      stop_sequence: null,
      usage: { input_tokens: 1, output_tokens: 1 },
    }),
  },
} as never;

describe("adapter options: refused where given unless the documented rule accepts them", () => {
  it("maxMediaBytes of every adapter entry point: a whole number at least 0, or Infinity", async () => {
    await expectRuleHolds("maxMediaBytes", (maxMediaBytes) => createAiSdkTools(run(), { maxMediaBytes }), MEDIA);
    await expectRuleHolds("maxMediaBytes", (maxMediaBytes) => runAnthropicToolUses(run(), [], { maxMediaBytes }), MEDIA);
    await expectRuleHolds("maxMediaBytes", (maxMediaBytes) => runOpenAIChatToolCalls(run(), [], { maxMediaBytes }), MEDIA);
    await expectRuleHolds(
      "maxMediaBytes",
      (maxMediaBytes) => runOpenAIResponsesFunctionCalls(run(), [], { maxMediaBytes }),
      MEDIA,
    );
    await expectRuleHolds(
      "maxMediaBytes",
      (maxMediaBytes) => anthropicToolLoop(run(), { client: endingClient, model: "m", messages: [], maxMediaBytes }),
      MEDIA,
    );
  });

  it("anthropicToolLoop maxTurns and maxTokens: whole numbers at least 1", async () => {
    const loop = (options: object) => anthropicToolLoop(run(), { client: endingClient, model: "m", messages: [], ...options });
    await expectRuleHolds("maxTurns", (maxTurns) => loop({ maxTurns }), { min: 1, integer: true });
    await expectRuleHolds("maxTokens", (maxTokens) => loop({ maxTokens }), { min: 1, integer: true });
  });

  it("createAiSdkAgentRunner maxSteps: a whole number at least 1, or Infinity", async () => {
    await expectRuleHolds(
      "maxSteps",
      (maxSteps) => createAiSdkAgentRunner({ registry: createRegistry(), model: "m" as never, maxSteps }),
      { min: 1, integer: true, infinite: true },
    );
  });

  it("runToolLoop maxTurns: a whole number at least 1, or Infinity", async () => {
    await expectRuleHolds(
      "maxTurns",
      (maxTurns) => runToolLoop(run(), new ScriptedModel([{ respond: { text: "done" } }]), { prompt: "go", maxTurns }),
      { min: 1, integer: true, infinite: true },
    );
  });
});

describe("positive controls", () => {
  const toolUse = [{ type: "tool_use", id: "toolu_1", name: "screenshot", input: {}, caller: { type: "direct" } }] as const;

  it("maxMediaBytes 0 sends the image and PDF as lines saying they were left out; Infinity sends them", async () => {
    const [none] = await runAnthropicToolUses(plainRun(), [...toolUse], { maxMediaBytes: 0 });
    expect(JSON.stringify(none)).not.toContain('"type":"image"');
    expect(JSON.stringify(none)).toContain("[image omitted: image/png");
    const [all] = await runAnthropicToolUses(plainRun(), [...toolUse], { maxMediaBytes: Number.POSITIVE_INFINITY });
    expect(JSON.stringify(all)).toContain('"type":"image"');
    expect(JSON.stringify(all)).toContain('"type":"document"');
  });
});
