/**
 * Red team round 18: a host tool group whose handlers misbehave: an output that throws while it is
 * turned into the model's output (a getter, a `toJSON`), a thenable that resolves twice (and then
 * rejects and throws), a handler that calls its own run recursively 1,000 deep, and one that closes
 * the run it runs in. Each call must end with a result the model can read (through `run.call` and
 * through the AI SDK's `generateText`, whose `toModelOutput` sees the output), never a crash or a
 * hang, and the run must keep serving the next call. These held on the code of this round.
 */
import { createRegistry, defineTool, defineToolGroup, type Run, type ToolCallResult } from "agent-tool-catalog";
import { createAiSdkTools } from "agent-tool-catalog/ai-sdk";
import { generateText, stepCountIs } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { describe, expect, it } from "vitest";
import { z } from "zod";

let current: Run | undefined;

const hostile = defineToolGroup({
  name: "hostile",
  tools: [
    defineTool({
      name: "throwing_getter",
      description: "An output with a getter that throws.",
      inputSchema: z.object({}),
      handler: () => ({
        kept: "yes",
        get broken(): string {
          throw new Error("getter boom");
        },
      }),
    }),
    defineTool({
      name: "throwing_to_json",
      description: "An output whose toJSON throws.",
      inputSchema: z.object({}),
      handler: () => ({
        toJSON(): never {
          throw new Error("toJSON boom");
        },
      }),
    }),
    defineTool({
      name: "resolves_twice",
      description: "A thenable that resolves twice, rejects, then throws.",
      inputSchema: z.object({}),
      handler: () =>
        ({
          // biome-ignore lint/suspicious/noThenProperty: the hostile thenable is the test
          then(resolve: (value: unknown) => void, reject: (reason: unknown) => void) {
            resolve("first");
            resolve("second");
            reject(new Error("late rejection"));
            throw new Error("thrown after resolving");
          },
        }) as unknown as string,
    }),
    defineTool({
      name: "recurse",
      description: "Calls itself through its own run.",
      inputSchema: z.object({ depth: z.number() }),
      handler: async ({ depth }): Promise<unknown> => {
        if (depth >= 1_000) return "bottom";
        const inner = await (current as Run).call("recurse", { depth: depth + 1 });
        return inner.ok ? inner.output : inner.error.code;
      },
    }),
    defineTool({
      name: "close_own_run",
      description: "Closes the run it runs in.",
      inputSchema: z.object({}),
      handler: async () => {
        await (current as Run).close();
        return "closed";
      },
    }),
    defineTool({ name: "echo", description: "Echoes.", inputSchema: z.object({}), handler: () => "still here" }),
  ],
});

function runOf(): Run {
  current = createRegistry({ groups: [hostile] }).createRun();
  return current;
}

/** The call's result, or "hung" after 10 s. */
async function within(call: Promise<ToolCallResult>): Promise<ToolCallResult | "hung"> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const hung = new Promise<"hung">((resolve) => {
    timer = setTimeout(() => resolve("hung"), 10_000);
  });
  return Promise.race([call, hung]).finally(() => clearTimeout(timer));
}

describe("hostile host group handlers through run.call", () => {
  it("throwing getter and toJSON: the output is sent with the unserializable part marked; the run goes on", async () => {
    const run = runOf();
    expect(await within(run.call("throwing_getter", {}))).toMatchObject({
      ok: true,
      output: { kept: "yes", broken: "[Unserializable]" },
    });
    expect(await within(run.call("throwing_to_json", {}))).toMatchObject({ ok: true, output: "[Unserializable]" });
    expect(await within(run.call("echo", {}))).toMatchObject({ ok: true, output: "still here" });
  });

  it("a thenable that resolves twice, rejects and throws: the first value, once; the run goes on", async () => {
    const run = runOf();
    const results: ToolCallResult[] = [];
    run.events.on("tool.result", (event) => results.push(event.result));
    expect(await within(run.call("resolves_twice", {}))).toMatchObject({ ok: true, output: "first" });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(results).toHaveLength(1);
    expect(await within(run.call("echo", {}))).toMatchObject({ ok: true, output: "still here" });
  });

  it("a handler calling its own run 1,000 deep: the innermost is too_many_calls, nothing overflows; the run goes on", async () => {
    const run = runOf();
    const result = await within(run.call("recurse", { depth: 0 }));
    expect(result).toMatchObject({ ok: true, output: "too_many_calls" });
    // Positive control: a shallow recursion reaches the bottom.
    expect(await within(run.call("recurse", { depth: 990 }))).toMatchObject({ ok: true, output: "bottom" });
    expect(await within(run.call("echo", {}))).toMatchObject({ ok: true, output: "still here" });
  }, 30_000);

  it("a handler closing its own run: aborted at once, and later calls are refused, not hung", async () => {
    const run = runOf();
    expect(await within(run.call("close_own_run", {}))).toMatchObject({ ok: false, error: { code: "aborted" } });
    expect(await within(run.call("echo", {}))).toMatchObject({ ok: false });
  });
});

describe("hostile host group handlers through the AI SDK (toModelOutput sees the output)", () => {
  it("each hostile tool's answer reaches the model as readable output; generateText does not throw", async () => {
    const run = runOf();
    run.activate(["throwing_getter", "throwing_to_json", "resolves_twice", "echo"]);
    const { tools, prepareStep } = createAiSdkTools(run);
    const usage = {
      inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
      outputTokens: { total: 1, text: 1, reasoning: 0 },
    };
    const names = ["throwing_getter", "throwing_to_json", "resolves_twice", "echo"];
    let step = 0;
    const seen: unknown[] = [];
    const model = new MockLanguageModelV3({
      doGenerate: async (options) => {
        step++;
        if (step === 2) seen.push(...options.prompt.filter((message) => message.role === "tool"));
        return step === 1
          ? {
              content: names.map((toolName, index) => ({
                type: "tool-call" as const,
                toolCallId: `c${index}`,
                toolName,
                input: "{}",
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
    const result = await generateText({ model, tools, prepareStep, prompt: "go", stopWhen: stepCountIs(3) });
    expect(result.text).toBe("done");
    const text = JSON.stringify(seen);
    expect(text).toContain("[Unserializable]");
    expect(text).toContain("first");
    expect(text).not.toContain("second");
    expect(text).toContain("still here");
  });
});
