import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  type AgentPromptRequest,
  type AgentPromptResult,
  defineWorkflow,
  InProcessWorkflowService,
  ManualClock,
  type WorkflowDefinition,
  type WorkflowRunCheckpoint,
  workflowToolGroup,
} from "../../src/host/index.js";
import { deferred, failure, hostRun, record, ScriptedRunner, toolNames } from "./support/host-test-kit.js";

const research = defineWorkflow({
  name: "research",
  description: "Research a topic from three angles and summarise.",
  argsSchema: z.object({ topic: z.string().min(1) }),
  run: async (ctx, { topic }) => {
    const angles = await ctx.parallel(
      ["history", "practice", "risks"].map((angle) => () => ctx.agent(`${angle} of ${topic}`)),
      { concurrency: 2 },
    );
    return ctx.pipeline(
      angles,
      (notes) => notes.join(" | "),
      (joined) => ctx.agent(`summarise: ${joined}`, { profile: "writer" }),
      (summary) => ({ summary, calls: ctx.usage.agentCalls }),
    );
  },
});

function fanOut(name: string, count: number, budget: WorkflowDefinition["budget"], catchErrors = false): WorkflowDefinition {
  return defineWorkflow({
    name,
    description: `${count} sequential agent calls`,
    ...(budget === undefined ? {} : { budget }),
    run: async (ctx) => {
      const answers: string[] = [];
      for (let index = 0; index < count; index++) {
        try {
          answers.push(await ctx.agent(`step ${index}`));
        } catch (error) {
          if (!catchErrors) throw error;
        }
      }
      return answers;
    },
  });
}

function workflowSetup(script?: (request: AgentPromptRequest) => AgentPromptResult | Promise<AgentPromptResult>) {
  const clock = new ManualClock(Date.UTC(2025, 0, 1));
  const runner = new ScriptedRunner(
    script ?? ((request) => ({ output: `<${request.prompt}>`, usage: { inputTokens: 7, outputTokens: 3 } })),
  );
  const service = new InProcessWorkflowService({
    runner,
    clock,
    workflows: [
      research,
      fanOut("three", 3, { maxAgentCalls: 2 }),
      fanOut("stubborn", 3, { maxAgentCalls: 1 }, true),
      fanOut("tokens", 3, { maxTokens: 15 }),
    ],
  });
  const { registry, run } = hostRun([workflowToolGroup({ service })]);
  return { clock, runner, service, registry, run };
}

describe("workflow tool group", () => {
  it("is present only with a service", () => {
    expect(toolNames(hostRun([workflowToolGroup({})]).registry)).toEqual([]);
    expect(toolNames(workflowSetup().registry)).toEqual(["create_workflow", "run_workflow"]);
  });
});

describe("run_workflow", () => {
  it("runs a TypeScript workflow with ctx.agent, ctx.parallel and ctx.pipeline and returns its result", async () => {
    const { run, runner } = workflowSetup();
    const result = record(await run.call("run_workflow", { name: "research", args: { topic: "cron" } }));
    expect(result).toMatchObject({
      workflow: "research",
      status: "completed",
      agent_calls: 4,
      tokens: 40,
      result: { summary: "<summarise: <history of cron> | <practice of cron> | <risks of cron>>", calls: 4 },
    });
    expect(runner.requests.map((request) => [request.depth, request.profile])).toEqual([
      [1, undefined],
      [1, undefined],
      [1, undefined],
      [1, "writer"],
    ]);
  });

  it("checks args with the workflow's schema, and names unknown workflows", async () => {
    const { run } = workflowSetup();
    expect(failure(await run.call("run_workflow", { name: "research", args: { topic: 3 } }))).toMatchObject({
      code: "invalid_workflow_args",
      message: expect.stringContaining("topic:"),
    });
    expect(failure(await run.call("run_workflow", { name: "nope" }))).toMatchObject({
      code: "unknown_workflow",
      hint: expect.stringContaining("research"),
    });
    expect(failure(await run.call("run_workflow", {})).code).toBe("invalid_input");
  });

  it("stops a workflow that exceeds its agent-call or token budget, even one that catches the error", async () => {
    const { run, runner } = workflowSetup();
    const calls = record(await run.call("run_workflow", { name: "three" }));
    expect(calls).toMatchObject({
      status: "failed",
      agent_calls: 2,
      error: { code: "workflow_budget_exceeded", message: 'Workflow "three" stopped: it used its budget of 2 agent calls.' },
    });
    expect(record(await run.call("run_workflow", { name: "stubborn" }))).toMatchObject({
      status: "failed",
      error: { code: "workflow_budget_exceeded" },
    });
    const tokens = record(await run.call("run_workflow", { name: "tokens" }));
    expect(tokens).toMatchObject({
      status: "failed",
      tokens: 20,
      error: { message: 'Workflow "tokens" stopped: it used 20 tokens, over its budget of 15.' },
    });
    expect(failure(await run.call("run_workflow", { resume_run_id: calls.run_id })).code).toBe("resume_refused");
    expect(runner.requests).toHaveLength(5);
  });

  it("resumes a failed run, replaying finished agent calls instead of repeating them", async () => {
    let flaky = true;
    const { run, runner } = workflowSetup((request) => {
      if (request.prompt === "risks of cron" && flaky) {
        flaky = false;
        return Promise.reject(new Error("rate limited"));
      }
      return { output: `<${request.prompt}>` };
    });
    const failed = record(await run.call("run_workflow", { name: "research", args: { topic: "cron" } }));
    expect(failed).toMatchObject({
      status: "failed",
      error: { code: "workflow_failed", message: "rate limited" },
      hint: expect.stringContaining("resume_run_id"),
    });
    const resumed = record(await run.call("run_workflow", { resume_run_id: failed.run_id }));
    // Five calls made in all: the failed attempt counts against the budget, the replayed ones do not.
    expect(resumed).toMatchObject({ run_id: failed.run_id, status: "completed", agent_calls: 5 });
    expect(runner.requests.map((request) => request.prompt).filter((prompt) => prompt === "history of cron")).toHaveLength(1);
    expect(runner.requests).toHaveLength(5);
  });

  it("returns at once with wait false, bounds waits by timeout_seconds, and keeps runs to their conversation", async () => {
    const answer = deferred<AgentPromptResult>();
    const { clock, registry, run } = workflowSetup(() => answer.promise);
    const started = record(await run.call("run_workflow", { name: "three", wait: false }));
    expect(started).toMatchObject({ status: "running", hint: expect.stringContaining("resume_run_id") });
    const waiting = run.call("run_workflow", { resume_run_id: started.run_id, timeout_seconds: 5 });
    await clock.advance(5_000);
    expect(record(await waiting).status).toBe("running");
    const stranger = registry.createRun({ profile: "full" });
    stranger.activate(["run_workflow"]);
    expect(failure(await stranger.call("run_workflow", { resume_run_id: started.run_id })).code).toBe("unknown_workflow_run");
    answer.resolve({ output: "ok" });
    expect(record(await run.call("run_workflow", { resume_run_id: started.run_id }))).toMatchObject({
      status: "failed",
      agent_calls: 2,
    });
  });
});

describe("create_workflow", () => {
  it("stores the source for review and never evaluates it", async () => {
    const { run, service } = workflowSetup();
    const source = 'globalThis.workflowRan = true; export default { name: "evil", run: async () => process.exit(1) };';
    const stored = record(await run.call("create_workflow", { name: "evil", description: "tries to run", source }));
    expect(stored).toMatchObject({ status: "pending_review", note: expect.stringContaining("not runnable") });
    expect(service.submissions()).toEqual([
      expect.objectContaining({ name: "evil", source, scope: "project", submittedBy: run.id }),
    ]);
    expect((globalThis as { workflowRan?: boolean }).workflowRan).toBeUndefined();
    expect(failure(await run.call("run_workflow", { name: "evil" })).code).toBe("unknown_workflow");
    expect(failure(await run.call("create_workflow", { name: "../evil", description: "d", source: "x" })).code).toBe(
      "invalid_name",
    );
  });
});

describe("workflow checkpoints", () => {
  it("let another service adopt a failed run and resume it, replaying finished agent calls and keeping the spend", async () => {
    const prompts: string[] = [];
    const runner = {
      runPrompt: async ({ prompt }: AgentPromptRequest): Promise<AgentPromptResult> => {
        prompts.push(prompt);
        // "step 1" fails the first time it is asked.
        if (prompt === "step 1" && prompts.filter((seen) => seen === prompt).length === 1) throw new Error("flaky");
        return { output: `<${prompt}>`, usage: { inputTokens: 2, outputTokens: 1 } };
      },
    };
    const first = new InProcessWorkflowService({ runner, workflows: [fanOut("three", 3, { maxAgentCalls: 10 })] });
    const scope = hostRun([]).run.scope();
    const started = await first.start("three", {}, { ownerId: "conv", depth: 1, scope });
    expect(await first.wait(started.runId, { timeoutMs: 5_000 })).toMatchObject({ status: "failed", agentCalls: 2 });
    const checkpoint = JSON.parse(JSON.stringify(first.checkpoint(started.runId))) as WorkflowRunCheckpoint;
    expect(checkpoint.journal).toHaveLength(1);

    const journaled: string[] = [];
    const second = new InProcessWorkflowService({ runner, workflows: [fanOut("three", 3, { maxAgentCalls: 10 })] });
    second.onJournal((runId) => journaled.push(runId));
    expect(second.adopt(checkpoint)).toMatchObject({ runId: started.runId, status: "failed" });
    expect(() => second.adopt(checkpoint)).toThrow(/known here already/);
    await second.resume(started.runId);
    expect(await second.wait(started.runId, { timeoutMs: 5_000 })).toMatchObject({
      status: "completed",
      result: ["<step 0>", "<step 1>", "<step 2>"],
      agentCalls: 4, // 2 before the adoption, 2 after: the spend carried over
    });
    // step 0 was replayed from the journal, not asked again.
    expect(prompts).toEqual(["step 0", "step 1", "step 1", "step 2"]);
    expect(journaled).toEqual([started.runId, started.runId]);
    // Positive control: a service without the workflow cannot adopt it.
    expect(() => new InProcessWorkflowService({ runner }).adopt(checkpoint)).toThrow(/no workflow named/);
  });
});
