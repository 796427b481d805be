/**
 * Red team round 39 (held): one AI SDK step (ai@6 runs its calls concurrently) of 40 calls mixed:
 * 10 of a mutating tool whose approvals are answered out of order (some twice, some approved
 * after the step was aborted), 10 `find_tool` activations of a deferred tool, 10 calls of that
 * deferred tool, 10 of a tool that never settles, with a `tool.called` listener rewriting every
 * input it is handed. The step is aborted while approvals and hangers are pending. Everything
 * settles: `generateText` rejects with the abort, every approval request is resolved, no call
 * is left in flight, a denied or late-approved call never ran, the handlers saw the inputs the
 * model sent, and the run takes new calls afterwards.
 */
import { createRegistry, defineTool, InMemoryApprovalBroker } from "agent-tool-catalog";
import { createAiSdkTools } from "agent-tool-catalog/ai-sdk";
import { generateText, stepCountIs } from "ai";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { scriptedModel, toolCall } from "../support/scripted-model.js";

describe("a mixed parallel step aborted midway", () => {
  it("settles every call and approval; what ran is what was approved and sent", async () => {
    const broker = new InMemoryApprovalBroker();
    const deployed: string[] = [];
    const looked: string[] = [];
    const registry = createRegistry({
      approvals: broker,
      tools: [
        defineTool({
          name: "deploy",
          description: "Deploys a target.",
          tier: "core",
          mutating: true,
          inputSchema: z.object({ target: z.string() }),
          handler: ({ target }) => {
            deployed.push(target);
            return `deployed ${target}`;
          },
        }),
        defineTool({
          name: "lookup",
          description: "Looks a key up in the archive.",
          tier: "deferred",
          inputSchema: z.object({ key: z.string() }),
          handler: ({ key }) => {
            looked.push(key);
            return `found ${key}`;
          },
        }),
        defineTool({
          name: "hang",
          description: "Never answers.",
          tier: "core",
          inputSchema: z.object({ n: z.number() }),
          handler: () => new Promise(() => undefined),
        }),
      ],
    });
    const run = registry.createRun({ permissions: { approval: "destructive" } });
    run.events.on("tool.called", ({ input }) => {
      (input as Record<string, unknown>).target = "prod";
      (input as Record<string, unknown>).key = "forged";
    });
    const controller = new AbortController();
    const requests: string[] = [];
    const approvedTargets = new Set<string>();
    broker.events.on("approval.requested", (request) => {
      requests.push(request.id);
      const target = (request.input as { target: string }).target;
      const index = Number(target.slice(1));
      // Out of order: odd ones approved at once (and again), multiples of 4 denied, the rest left
      // waiting until after the abort, then approved late.
      if (index % 2 === 1) {
        setTimeout(
          () => {
            approvedTargets.add(target);
            broker.approve(request.id);
            broker.approve(request.id);
          },
          10 * (10 - index),
        );
      } else if (index % 4 === 0) setTimeout(() => broker.deny(request.id, "no"), 5);
      else setTimeout(() => controller.abort(new Error("user stopped")), 150);
    });
    const calls = [
      ...Array.from({ length: 10 }, (_, i) => toolCall(`d${i}`, "deploy", { target: `t${i}` })),
      ...Array.from({ length: 10 }, (_, i) => toolCall(`f${i}`, "find_tool", { query: "select:lookup" })),
      ...Array.from({ length: 10 }, (_, i) => toolCall(`l${i}`, "lookup", { key: `k${i}` })),
      ...Array.from({ length: 10 }, (_, i) => toolCall(`h${i}`, "hang", { n: i })),
    ];
    const { model } = scriptedModel([calls]);
    const { tools, prepareStep } = createAiSdkTools(run);
    const outcome = await generateText({
      model,
      tools,
      prepareStep,
      stopWhen: stepCountIs(3),
      prompt: "Go.",
      abortSignal: controller.signal,
    }).then(
      () => "resolved",
      (error: unknown) => `rejected: ${error instanceof Error ? error.message : String(error)}`,
    );
    expect(outcome).toMatch(/^rejected/);
    // Late approvals after the abort land on nothing.
    await new Promise((resolve) => setTimeout(resolve, 200));
    for (const id of requests) expect(broker.decide(id, "approved").ok).toBe(false);
    expect(broker.pending()).toEqual([]);
    // Only approved targets ran, each once, with the target the model sent.
    expect(deployed.length).toBeGreaterThan(0);
    expect(new Set(deployed).size).toBe(deployed.length);
    for (const target of deployed) expect(approvedTargets.has(target)).toBe(true);
    expect(deployed.every((target) => /^t[13579]$/.test(target))).toBe(true);
    expect(looked.every((key) => /^k\d$/.test(key))).toBe(true);
    // The run takes new calls afterwards.
    expect(await run.call("lookup", { key: "after" })).toMatchObject({ ok: true, output: "found after" });
    await registry.close();
  });
});
