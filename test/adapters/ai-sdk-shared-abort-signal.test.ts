/**
 * README ("Calling tools", "Vercel AI SDK"): any number of concurrent calls adds at most one
 * listener to a long-lived signal the host passes to all of them. `generateText` hands its one
 * `abortSignal` to every tool execution of the loop, and the adapter passes it to `run.call`:
 * 30 parallel calls of one step (a run store saving after each) put 30 listeners, and 30 more
 * for the saves, on that signal before, and Node warned `MaxListenersExceededWarning` from the
 * eleventh. Real `generateText` on a scripted model. Positive control: aborting the signal mid-step
 * still reaches every handler as its own signal.
 */
import { getEventListeners } from "node:events";
import { createRegistry, defineTool, InMemoryRunStore } from "agent-tool-catalog";
import { createAiSdkTools } from "agent-tool-catalog/ai-sdk";
import { generateText, stepCountIs } from "ai";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { toolCall as call, scriptedModel as scripted } from "../support/scripted-model.js";

const CALLS = 30;

function waitTool(onStart: () => void, gate: Promise<void>) {
  return defineTool({
    name: "wait_a_bit",
    description: "Waits.",
    inputSchema: z.object({ n: z.number() }),
    handler: async (_input, context) => {
      onStart();
      await Promise.race([gate, new Promise((resolve) => context.signal.addEventListener("abort", resolve))]);
      return context.signal.aborted ? "aborted" : "waited";
    },
  });
}

function ourWarnings(): { seen: Error[]; stop: () => void } {
  const seen: Error[] = [];
  const listener = (warning: Error) => {
    if (warning.name === "MaxListenersExceededWarning") seen.push(warning);
  };
  process.on("warning", listener);
  return { seen, stop: () => process.off("warning", listener) };
}

describe("the AI SDK loop's one abortSignal shared by a step's parallel calls", () => {
  it("30 parallel calls hold at most one listener of the catalog on it, and no listener-leak warning", async () => {
    const warnings = ourWarnings();
    try {
      const controller = new AbortController();
      const baseline = getEventListeners(controller.signal, "abort").length;
      let started = 0;
      let maxSeen = 0;
      let open: () => void = () => undefined;
      const gate = new Promise<void>((resolve) => (open = resolve));
      const tool = waitTool(() => {
        started++;
        if (started === CALLS) {
          // Every call runs: what is on the loop's signal now is the SDK's and the catalog's.
          setImmediate(() => {
            maxSeen = getEventListeners(controller.signal, "abort").length;
            open();
          });
        }
      }, gate);
      const run = createRegistry({ tools: [tool] }).createRun({ store: new InMemoryRunStore() });
      const { model } = scripted([Array.from({ length: CALLS }, (_, n) => call(`c${n}`, "wait_a_bit", { n }))]);
      const { tools, prepareStep } = createAiSdkTools(run);
      const result = await generateText({
        model,
        tools,
        prepareStep,
        stopWhen: stepCountIs(3),
        prompt: "wait",
        abortSignal: controller.signal,
      });
      const outputs = result.steps[0]?.toolResults.map((part) => part.output) ?? [];
      expect(outputs).toHaveLength(CALLS);
      expect(new Set(outputs)).toEqual(new Set(["waited"]));
      // The SDK adds none of its own per call (it would show here too): the catalog's one shared listener.
      expect(maxSeen - baseline).toBeLessThanOrEqual(1);
      expect(warnings.seen.map((warning) => warning.stack)).toEqual([]);
    } finally {
      warnings.stop();
    }
  });

  it("positive control: aborting the loop's signal mid-step aborts every running call", async () => {
    const controller = new AbortController();
    let started = 0;
    const tool = waitTool(
      () => {
        started++;
        if (started === CALLS) setImmediate(() => controller.abort());
      },
      new Promise(() => {}),
    );
    const run = createRegistry({ tools: [tool] }).createRun();
    const { model } = scripted([Array.from({ length: CALLS }, (_, n) => call(`c${n}`, "wait_a_bit", { n }))]);
    const { tools, prepareStep } = createAiSdkTools(run);
    await expect(
      generateText({ model, tools, prepareStep, stopWhen: stepCountIs(3), prompt: "wait", abortSignal: controller.signal }),
    ).rejects.toThrow();
    expect(started).toBe(CALLS);
    expect(getEventListeners(controller.signal, "abort").length).toBeLessThanOrEqual(1);
  });
});
