/**
 * Red team round 35: a handler that changes the registry while the AI SDK's `generateText` runs a
 * step of parallel calls (the real SDK loop, a scripted model). In one step the model calls
 * `rotate`, whose handler removes `victim`, updates `echo` to a new schema and registers `fresh`,
 * beside a call of `victim` that is still running and one of `echo`. Expected: no throw out of
 * the loop, every call of the step answered (the running `victim` call finishes as it started),
 * and the next step offered and checked against the registry as it is now: `victim` gone (a call
 * of it a structured `unknown_tool` answer to the model), `fresh` offered and run, `echo` checked
 * with its new schema. Control: the same loop without the mutation runs every call.
 */
import { createRegistry, defineTool, type Registry } from "agent-tool-catalog";
import { createAiSdkTools } from "agent-tool-catalog/ai-sdk";
import { generateText, stepCountIs } from "ai";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { scriptedModel, toolCall } from "../support/scripted-model.js";

let registry: Registry | undefined;
afterEach(async () => {
  await registry?.close();
  registry = undefined;
});

function setUp(mutate: boolean) {
  registry = createRegistry();
  const reg = registry;
  const ran: string[] = [];
  let releaseVictim: () => void = () => {};
  const victimRunning = new Promise<void>((resolve) => {
    releaseVictim = resolve;
  });
  const victim = reg.register(
    defineTool({
      name: "victim",
      description: "Takes a while.",
      tier: "core",
      inputSchema: z.object({}),
      handler: async () => {
        ran.push("victim");
        await victimRunning;
        return "victim done";
      },
    }),
  );
  const echo = reg.register(
    defineTool({
      name: "echo",
      description: "Echoes a.",
      tier: "core",
      inputSchema: z.object({ a: z.string() }),
      handler: ({ a }) => `a=${a}`,
    }),
  );
  reg.register(
    defineTool({
      name: "rotate",
      description: "Changes the registry.",
      tier: "core",
      inputSchema: z.object({}),
      handler: () => {
        ran.push("rotate");
        if (mutate) {
          victim.remove();
          echo.update(
            defineTool({
              name: "echo",
              description: "Echoes b.",
              tier: "core",
              inputSchema: z.object({ b: z.string() }),
              handler: ({ b }) => `b=${b}`,
            }),
          );
          reg.register(
            defineTool({
              name: "fresh",
              description: "New.",
              tier: "core",
              inputSchema: z.object({}),
              handler: () => "fresh ran",
            }),
          );
        }
        releaseVictim();
        return "rotated";
      },
    }),
  );
  return { reg, ran };
}

type StepContent = { type: string; toolCallId?: string; output?: unknown; error?: unknown };

/** Each call id of a step with what the model was answered: the result, or the SDK's tool-error. */
function answersOf(content: readonly StepContent[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of content) {
    if (part.toolCallId === undefined) continue;
    if (part.type === "tool-result") out[part.toolCallId] = String(part.output);
    if (part.type === "tool-error") out[part.toolCallId] = `error: ${String(part.error)}`;
  }
  return out;
}

describe("a handler that changes the registry during a step of parallel calls", () => {
  it("every call of the step is answered and the next step sees the registry as it is", async () => {
    const { reg, ran } = setUp(true);
    const run = reg.createRun();
    const { tools, prepareStep } = createAiSdkTools(run);
    const { model, seen } = scriptedModel([
      [toolCall("v1", "victim", {}), toolCall("r1", "rotate", {}), toolCall("e1", "echo", { a: "x" })],
      [toolCall("v2", "victim", {}), toolCall("f2", "fresh", {}), toolCall("e2", "echo", { b: "y" })],
    ]);
    const result = await generateText({ model, tools, prepareStep, stopWhen: stepCountIs(4), prompt: "go" });
    const [first, second] = result.steps.map((step) => answersOf(step.content as StepContent[]));
    // The step's calls all answered; the victim's call, running when it was removed, finished.
    expect(first).toEqual({ v1: "victim done", r1: "rotated", e1: "a=x" });
    expect(ran).toEqual(["victim", "rotate"]);
    // The next step offers the registry as it is: victim gone, echo with its new schema. A tool
    // registered during the call joins the next generateText call (README, AI SDK section).
    const offered = seen.map((options) => (options.tools ?? []).map((tool) => tool.name).sort());
    expect(offered[0]).toEqual(["echo", "find_tool", "rotate", "victim"]);
    expect(offered[1]).toEqual(["echo", "find_tool", "rotate"]);
    const echoOffered = seen[1]?.tools?.find((tool) => tool.name === "echo");
    expect(JSON.stringify(echoOffered)).toContain('"b"');
    expect(second?.v2).toMatch(/^error: .*unavailable tool 'victim'/);
    expect(second?.f2).toMatch(/^error: .*unavailable tool 'fresh'/);
    expect(second?.e2).toBe("b=y");
    expect(ran).toEqual(["victim", "rotate"]);

    // The next generateText call, with tools built again, offers and runs fresh.
    const again = createAiSdkTools(run);
    const next = scriptedModel([[toolCall("f3", "fresh", {})]]);
    const nextResult = await generateText({
      model: next.model,
      tools: again.tools,
      prepareStep: again.prepareStep,
      stopWhen: stepCountIs(3),
      prompt: "go",
    });
    expect(answersOf(nextResult.steps[0]?.content as StepContent[])).toEqual({ f3: "fresh ran" });
  });

  it("control: without the change every call of both steps runs", async () => {
    const { reg, ran } = setUp(false);
    const { tools, prepareStep } = createAiSdkTools(reg.createRun());
    const { model } = scriptedModel([
      [toolCall("v1", "victim", {}), toolCall("r1", "rotate", {}), toolCall("e1", "echo", { a: "x" })],
      [toolCall("v2", "victim", {}), toolCall("e2", "echo", { a: "y" })],
    ]);
    const result = await generateText({ model, tools, prepareStep, stopWhen: stepCountIs(4), prompt: "go" });
    const [first, second] = result.steps.map((step) => answersOf(step.content as StepContent[]));
    expect(first).toEqual({ v1: "victim done", r1: "rotated", e1: "a=x" });
    expect(second).toEqual({ v2: "victim done", e2: "a=y" });
    expect(ran).toEqual(["victim", "rotate", "victim"]);
  });
});
