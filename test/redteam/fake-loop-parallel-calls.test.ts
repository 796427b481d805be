/**
 * Red team round 14: does the testing helper's loop behave like the real loops? `runToolLoop` runs
 * a turn's calls one after the other, like the Anthropic and OpenAI batch runners; the AI SDK
 * runs a step's calls at the same time. A race between two calls of one turn (two writers, a
 * call waiting for another) could not be reproduced with the fake loop at all. `parallelCalls`
 * runs them as the AI SDK does; the same two-call turn gives the same answers in both.
 */
import { createRegistry, defineTool, type Run } from "agent-tool-catalog";
import { createAiSdkTools } from "agent-tool-catalog/ai-sdk";
import { runToolLoop, ScriptedModel } from "agent-tool-catalog/testing";
import { generateText, stepCountIs } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { describe, expect, it } from "vitest";
import { z } from "zod";

/** A tool that says whether another call of it was running at the same time (a barrier with a 1 s limit). */
function rendezvousRun(): Run {
  let waiting: (() => void) | undefined;
  return createRegistry({
    tools: [
      defineTool({
        name: "meet",
        description: "Meet the other call.",
        inputSchema: z.object({ who: z.string() }),
        handler: async () => {
          if (waiting !== undefined) {
            waiting();
            waiting = undefined;
            return "together";
          }
          return new Promise<string>((resolve) => {
            const timer = setTimeout(() => {
              waiting = undefined;
              resolve("alone");
            }, 1_000);
            waiting = () => {
              clearTimeout(timer);
              resolve("together");
            };
          });
        },
      }),
    ],
  }).createRun();
}

const calls = [
  { name: "meet", args: { who: "a" } },
  { name: "meet", args: { who: "b" } },
];

describe("runToolLoop and the AI SDK on a turn with two calls", () => {
  it("the AI SDK runs them at once; runToolLoop with parallelCalls does the same, in call order", async () => {
    const run = rendezvousRun();
    const { tools, prepareStep } = createAiSdkTools(run);
    let step = 0;
    const usage = {
      inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
      outputTokens: { total: 1, text: 1, reasoning: 0 },
    };
    const model = new MockLanguageModelV3({
      doGenerate: async () => {
        step++;
        return step === 1
          ? {
              content: calls.map((call, index) => ({
                type: "tool-call" as const,
                toolCallId: `c${index}`,
                toolName: call.name,
                input: JSON.stringify(call.args),
              })),
              finishReason: { unified: "tool-calls" as const, raw: undefined },
              usage,
              warnings: [],
            }
          : {
              content: [{ type: "text" as const, text: "done" }],
              finishReason: { unified: "stop" as const, raw: undefined },
              usage,
              warnings: [],
            };
      },
    });
    const sdk = await generateText({ model, tools, prepareStep, stopWhen: stepCountIs(3), prompt: "meet" });
    expect(sdk.steps[0]?.toolResults.map((result) => result.output)).toEqual(["together", "together"]);

    const fake = await runToolLoop(
      rendezvousRun(),
      new ScriptedModel([{ respond: { toolCalls: calls } }, { respond: { text: "done" } }]),
      {
        prompt: "meet",
        parallelCalls: true,
      },
    );
    expect(fake.calls.map((call) => [call.args, call.result.ok && call.result.output])).toEqual([
      [{ who: "a" }, "together"],
      [{ who: "b" }, "together"],
    ]);
  });

  it("control: by default runToolLoop runs them one after the other, as the Anthropic and OpenAI runners do", async () => {
    const fake = await runToolLoop(
      rendezvousRun(),
      new ScriptedModel([{ respond: { toolCalls: calls } }, { respond: { text: "done" } }]),
      {
        prompt: "meet",
      },
    );
    expect(fake.calls.map((call) => call.result.ok && call.result.output)).toEqual(["alone", "alone"]);
  });

  it("one id twice in a turn: the second is answered duplicate_call_id and not run, in both modes, as the adapters do", async () => {
    for (const parallelCalls of [false, true]) {
      const ran: number[] = [];
      const append = defineTool({
        name: "append",
        description: "Append a number.",
        tier: "core",
        inputSchema: z.object({ n: z.number() }),
        handler: async ({ n }) => {
          ran.push(n);
          await new Promise((resolve) => setTimeout(resolve, 5));
          return `ok ${n}`;
        },
      });
      const run = createRegistry({ tools: [append] }).createRun({ permissions: { approval: "none" } });
      const calls = [
        { id: "c1", name: "append", args: { n: 0 } },
        { id: "c1", name: "append", args: { n: 1 } },
        { id: "c2", name: "append", args: { n: 2 } },
      ];
      const model = new ScriptedModel([
        { respond: { toolCalls: calls } },
        // Control: the next turn may use the id again.
        { respond: { toolCalls: [{ id: "c1", name: "append", args: { n: 3 } }] } },
        { respond: { text: "done" } },
      ]);
      const transcript = await runToolLoop(run, model, { prompt: "append", parallelCalls });
      expect(ran.sort()).toEqual([0, 2, 3]);
      expect(transcript.calls.map((call) => (call.result.ok ? "ok" : call.result.error.code))).toEqual([
        "ok",
        "duplicate_call_id",
        "ok",
        "ok",
      ]);
    }
  });
});
