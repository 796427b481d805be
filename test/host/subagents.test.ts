import { describe, expect, it } from "vitest";
import {
  type AgentPromptRequest,
  type AgentPromptResult,
  InProcessSubagentManager,
  ManualClock,
  subagentToolGroup,
} from "../../src/host/index.js";
import { deferred, failure, hostRun, record, ScriptedRunner, toolNames, untilAborted } from "./support/host-test-kit.js";

function subagentSetup(
  script: (request: AgentPromptRequest) => AgentPromptResult | Promise<AgentPromptResult>,
  maxRunning?: number,
) {
  const clock = new ManualClock(Date.UTC(2025, 0, 1));
  const runner = new ScriptedRunner(script);
  const manager = new InProcessSubagentManager({ runner, clock, ...(maxRunning === undefined ? {} : { maxRunning }) });
  const { registry, run } = hostRun([subagentToolGroup({ manager })]);
  return { clock, runner, manager, registry, run };
}

describe("subagent tool group", () => {
  it("is present only with a manager", () => {
    expect(toolNames(hostRun([subagentToolGroup({})]).registry)).toEqual([]);
    const manager = new InProcessSubagentManager({ runner: new ScriptedRunner(() => ({ output: "" })) });
    expect(toolNames(hostRun([subagentToolGroup({ manager })]).registry)).toEqual([
      "run_agent",
      "start_subagent",
      "get_subagent",
      "wait_subagent",
      "cancel_subagent",
    ]);
  });
});

describe("subagents", () => {
  it("run_agent starts one with task, profile, model and max_steps, and waits for its answer", async () => {
    const { run, runner } = subagentSetup((request) => ({ output: `done: ${request.prompt}` }));
    const result = record(
      await run.call("run_agent", { task: "list the TODOs", profile: "explorer", model: "fast", max_steps: 12 }),
    );
    expect(result).toMatchObject({ status: "completed", output: "done: list the TODOs", profile: "explorer", model: "fast" });
    expect(String(result.id)).toMatch(/^sub_[0-9a-f]{12}$/);
    expect(runner.requests[0]).toMatchObject({ depth: 1, profile: "explorer", model: "fast", maxSteps: 12, parentRunId: run.id });
  });

  it("start returns at once; get polls; wait is bounded and leaves it running", async () => {
    const answer = deferred<AgentPromptResult>();
    const { clock, run } = subagentSetup(() => answer.promise);
    const started = record(await run.call("start_subagent", { task: "long job" }));
    expect(started).toMatchObject({ status: "running", hint: expect.stringContaining("wait_subagent") });
    expect(record(await run.call("get_subagent", { id: started.id })).status).toBe("running");
    const waiting = run.call("wait_subagent", { id: started.id, timeout_seconds: 30 });
    await clock.advance(29_000);
    await clock.advance(1_000);
    expect(record(await waiting).status).toBe("running");
    const second = run.call("wait_subagent", { id: started.id });
    await clock.advance(1_000);
    answer.resolve({ output: "finished" });
    expect(record(await second)).toMatchObject({
      status: "completed",
      output: "finished",
      finished_at: "2025-01-01T00:00:31.000Z",
    });
    expect(clock.pendingTimers).toBe(0);
  });

  it("cancel aborts the runner's signal and marks the subagent cancelled", async () => {
    const signals: AbortSignal[] = [];
    const { run } = subagentSetup((request) => {
      signals.push(request.signal);
      return untilAborted(request.signal);
    });
    const started = record(await run.call("start_subagent", { task: "forever" }));
    expect(record(await run.call("cancel_subagent", { id: started.id }))).toMatchObject({
      status: "cancelled",
      error: "Cancelled.",
    });
    expect(signals[0]?.aborted).toBe(true);
    expect(record(await run.call("get_subagent", { id: started.id })).status).toBe("cancelled");
  });

  it("reports a failed runner, other conversations' ids as unknown, and too many running", async () => {
    const { registry, run } = subagentSetup(
      (request) => (request.prompt === "crash" ? Promise.reject(new Error("model down")) : untilAborted(request.signal)),
      1,
    );
    const crashed = record(await run.call("run_agent", { task: "crash" }));
    expect(crashed).toMatchObject({ status: "failed", error: "model down" });
    const started = record(await run.call("start_subagent", { task: "busy" }));
    expect(failure(await run.call("start_subagent", { task: "another" })).code).toBe("too_many_subagents");
    const stranger = registry.createRun({ profile: "full" });
    stranger.activate(["get_subagent", "cancel_subagent"]);
    expect(failure(await stranger.call("get_subagent", { id: started.id })).code).toBe("unknown_subagent");
    expect(failure(await stranger.call("cancel_subagent", { id: started.id })).code).toBe("unknown_subagent");
    expect(failure(await run.call("wait_subagent", { id: "sub_nope" })).code).toBe("unknown_subagent");
    expect(record(await run.call("cancel_subagent", { id: started.id })).status).toBe("cancelled");
  });

  it("refuses past the fork depth limit", async () => {
    const runner = new ScriptedRunner(() => ({ output: "" }));
    const manager = new InProcessSubagentManager({ runner });
    const { run } = hostRun([subagentToolGroup({ manager, maxForkDepth: 1 })], {
      context: { agentDepth: 1 },
    });
    expect(failure(await run.call("start_subagent", { task: "x" })).code).toBe("max_fork_depth_exceeded");
    expect(runner.requests).toHaveLength(0);
  });
});
