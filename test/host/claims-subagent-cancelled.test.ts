/**
 * README error table: `subagent_cancelled`, "the sub-agent was cancelled". It reaches the host's
 * agent runner as the reason its signal aborts when `cancel_subagent` stops the sub-agent (a runner
 * that passes the signal to its own run's calls ends them with it), while the caller sees the
 * sub-agent `cancelled`. Control: a sub-agent that finishes is never aborted.
 */
import { ToolError } from "agent-tool-catalog";
import { describe, expect, it } from "vitest";
import { InProcessSubagentManager, subagentToolGroup } from "../../src/host/index.js";
import { hostRun, record, ScriptedRunner, untilAborted } from "./support/host-test-kit.js";

describe("cancel_subagent", () => {
  it("aborts the runner's signal with a subagent_cancelled ToolError", async () => {
    const signals: AbortSignal[] = [];
    const runner = new ScriptedRunner((request) => {
      signals.push(request.signal);
      return request.prompt === "forever" ? untilAborted(request.signal) : { output: "done" };
    });
    const { run } = hostRun([subagentToolGroup({ manager: new InProcessSubagentManager({ runner }) })]);
    const started = record(await run.call("start_subagent", { task: "forever" }));
    expect(record(await run.call("cancel_subagent", { id: started.id }))).toMatchObject({ status: "cancelled" });
    const reason = signals[0]?.reason as unknown;
    expect(reason).toBeInstanceOf(ToolError);
    expect(reason).toMatchObject({ code: "subagent_cancelled" });
    // Control: one that finishes is not aborted.
    expect(record(await run.call("run_agent", { task: "quick" }))).toMatchObject({ output: "done" });
    expect(signals[1]?.aborted).toBe(false);
  });
});
