/**
 * README error table: `budget_exceeded`, "the swarm's budget ran out". When the members' tokens
 * pass `maxTokens`, the members still running are aborted with a `budget_exceeded` ToolError (the
 * reason their runner's signal carries; the model sees its message on the cancelled member).
 * Control: under the budget no member is aborted.
 */
import { ToolError } from "agent-tool-catalog";
import { describe, expect, it } from "vitest";
import { swarmToolGroup } from "../../src/host/index.js";
import { hostRun, record, ScriptedRunner, untilAborted } from "./support/host-test-kit.js";

function swarm(maxTokens: number) {
  const signals = new Map<string, AbortSignal>();
  const runner = new ScriptedRunner(async (request) => {
    signals.set(request.prompt, request.signal);
    if (request.prompt === "slow") return maxTokens > 100 ? { output: "slow done" } : untilAborted(request.signal);
    return { output: "ok", usage: { inputTokens: 8, outputTokens: 4 } };
  });
  const { run } = hostRun([swarmToolGroup({ runner, maxTokens, maxConcurrency: 2 })]);
  return { run, signals };
}

describe("swarm over its token budget", () => {
  it("aborts the running member with budget_exceeded", async () => {
    const { run, signals } = swarm(10);
    const out = record(await run.call("swarm", { tasks: [{ task: "slow" }, { task: "fast" }] }));
    const reason = signals.get("slow")?.reason as unknown;
    expect(reason).toBeInstanceOf(ToolError);
    expect(reason).toMatchObject({ code: "budget_exceeded" });
    expect((out.results as { status: string; error?: string }[])[0]).toMatchObject({
      status: "cancelled",
      error: expect.stringContaining("token budget (10)"),
    });
  });

  it("control: under the budget nothing is aborted", async () => {
    const { run, signals } = swarm(1000);
    expect(record(await run.call("swarm", { tasks: [{ task: "slow" }, { task: "fast" }] }))).toMatchObject({ completed: 2 });
    expect(signals.get("slow")?.aborted).toBe(false);
  });
});
