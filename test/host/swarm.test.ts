import { describe, expect, it } from "vitest";
import { swarmToolGroup } from "../../src/host/index.js";
import { deferred, failure, hostRun, record, ScriptedRunner, untilAborted } from "./support/host-test-kit.js";

describe("swarm", () => {
  it("is present only with a runner and the switch on", () => {
    const runner = new ScriptedRunner(() => ({ output: "" }));
    expect(
      hostRun([swarmToolGroup({})])
        .registry.list()
        .some((tool) => tool.name === "swarm"),
    ).toBe(false);
    expect(
      hostRun([swarmToolGroup({ runner, enableAgent: false })])
        .registry.list()
        .some((tool) => tool.name === "swarm"),
    ).toBe(false);
    const tool = hostRun([swarmToolGroup({ runner })])
      .registry.list()
      .find((entry) => entry.name === "swarm");
    expect(tool?.mutating).toBe(true);
    expect(tool?.tags).toContain("core-set");
  });

  it("runs the sub-tasks in parallel up to the cap, as children of the caller's scope, results in task order", async () => {
    let running = 0;
    let peak = 0;
    const gates = [deferred<void>(), deferred<void>(), deferred<void>()];
    const runner = new ScriptedRunner(async (request) => {
      running++;
      peak = Math.max(peak, running);
      const index = Number(request.prompt.slice(-1));
      await gates[index]?.promise;
      running--;
      return { output: `done ${request.prompt}`, usage: { inputTokens: 3, outputTokens: 1 } };
    });
    const { run } = hostRun([swarmToolGroup({ runner, maxConcurrency: 2 })], {
      permissions: { sandbox: "local", approval: "none" },
      allowedTools: ["swarm", "read"],
    });
    const call = run.call("swarm", { tasks: [{ task: "t0" }, { task: "t1" }, { task: "t2" }] });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(running).toBe(2);
    gates[1]?.resolve();
    gates[0]?.resolve();
    gates[2]?.resolve();
    const out = record(await call);
    expect(peak).toBe(2);
    expect(out).toMatchObject({ completed: 3, failed: 0, cancelled: 0, tokens: 12 });
    expect((out.results as { output: string }[]).map((result) => result.output)).toEqual(["done t0", "done t1", "done t2"]);
    for (const request of runner.requests) {
      expect(request.scope.runId).toBe(run.id);
      expect(request.scope.permissions.sandbox).toBe("local");
      expect(request.scope.allowedTools).toEqual(["swarm", "read"]);
      expect(request.depth).toBe(1);
    }
  });

  it("stops at the token budget: running members are cancelled, the rest never start", async () => {
    const runner = new ScriptedRunner(async (request) => {
      if (request.prompt === "slow") return untilAborted(request.signal);
      return { output: "ok", usage: { inputTokens: 8, outputTokens: 4 } };
    });
    const { run } = hostRun([swarmToolGroup({ runner, maxTokens: 10, maxConcurrency: 2 })]);
    const out = record(await run.call("swarm", { tasks: [{ task: "slow" }, { task: "fast" }, { task: "never" }] }));
    const results = out.results as { status: string; error?: string }[];
    expect(results.map((result) => result.status)).toEqual(["cancelled", "completed", "not_started"]);
    expect(results[0]?.error).toContain("token budget");
    expect(runner.requests.map((request) => request.prompt)).toEqual(["slow", "fast"]);
  });

  it("a failing member does not stop the others", async () => {
    const runner = new ScriptedRunner(async (request) => {
      if (request.prompt === "bad") throw new Error("model overloaded");
      return { output: "ok" };
    });
    const { run } = hostRun([swarmToolGroup({ runner })]);
    const out = record(await run.call("swarm", { tasks: [{ task: "bad" }, { task: "good" }] }));
    expect(out).toMatchObject({ completed: 1, failed: 1 });
    expect((out.results as { error?: string }[])[0]?.error).toBe("model overloaded");
  });

  it("cancelling the call cancels every member", async () => {
    const signals: AbortSignal[] = [];
    const runner = new ScriptedRunner(async (request) => {
      signals.push(request.signal);
      return untilAborted(request.signal);
    });
    const { run } = hostRun([swarmToolGroup({ runner })]);
    const controller = new AbortController();
    const call = run.call("swarm", { tasks: [{ task: "a" }, { task: "b" }] }, { signal: controller.signal });
    await new Promise((resolve) => setTimeout(resolve, 10));
    controller.abort();
    expect(failure(await call).code).toBe("aborted");
    expect(signals).toHaveLength(2);
    expect(signals.every((signal) => signal.aborted)).toBe(true);
  });

  it("refuses more sub-tasks than the host allows, before starting any", async () => {
    const runner = new ScriptedRunner(() => ({ output: "ok" }));
    const { run } = hostRun([swarmToolGroup({ runner, maxAgents: 2 })]);
    const error = failure(await run.call("swarm", { tasks: [{ task: "a" }, { task: "b" }, { task: "c" }] }));
    expect(error.code).toBe("swarm_too_large");
    expect(runner.requests).toHaveLength(0);
  });
});
