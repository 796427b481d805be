import { swarmToolGroup } from "agent-tool-catalog/host";
import { describe, expect, it } from "vitest";
import { hostRun, record, ScriptedRunner } from "../host/support/host-test-kit.js";

// Red team: an AgentRunner of the host's that ignores its signal (a model client without abort
// support, a stuck child). swarm promises a timeout and a token budget that cancel the rest;
// with such a runner its call waited for the member forever.

const never = () => new Promise<never>(() => undefined);

function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`still waiting after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

describe("swarm with a runner that ignores its signal", () => {
  it("ends at timeout_seconds: the stuck member is cancelled, the finished one kept", async () => {
    const runner = new ScriptedRunner((request) => (request.prompt === "quick" ? { output: "quick done" } : never()));
    const { run } = hostRun([swarmToolGroup({ runner })]);
    const started = performance.now();
    const out = record(
      await within(run.call("swarm", { tasks: [{ task: "quick" }, { task: "stuck" }], timeout_seconds: 1 }), 8000),
    );
    expect(performance.now() - started).toBeLessThan(8000);
    expect(out).toMatchObject({ completed: 1, cancelled: 1 });
    expect(out.results).toMatchObject([
      { index: 0, status: "completed", output: "quick done" },
      { index: 1, status: "cancelled" },
    ]);
  });

  it("ends when the token budget is spent, though a running member ignores the cancel", async () => {
    const runner = new ScriptedRunner((request) =>
      request.prompt === "costly" ? { output: "spent", usage: { inputTokens: 100, outputTokens: 0 } } : never(),
    );
    const { run } = hostRun([swarmToolGroup({ runner, maxTokens: 10 })]);
    const out = record(await within(run.call("swarm", { tasks: [{ task: "stuck" }, { task: "costly" }] }), 8000));
    expect(out).toMatchObject({ completed: 1, cancelled: 1, tokens: 100 });
    expect(out.results).toMatchObject([
      { index: 0, status: "cancelled", error: expect.stringContaining("budget") },
      { index: 1 },
    ]);
  });

  it("control: members that finish are all completed, nothing cancelled", async () => {
    const runner = new ScriptedRunner((request) => ({ output: `done ${request.prompt}` }));
    const out = record(await hostRun([swarmToolGroup({ runner })]).run.call("swarm", { tasks: [{ task: "a" }, { task: "b" }] }));
    expect(out).toMatchObject({ completed: 2, cancelled: 0, failed: 0 });
  });
});
