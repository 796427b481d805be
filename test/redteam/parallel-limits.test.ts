import {
  callbackToolGroup,
  cronToolGroup,
  InProcessCallbackManager,
  InProcessCronScheduler,
  InProcessSubagentManager,
  ManualClock,
  subagentToolGroup,
} from "agent-tool-catalog/host";
import { describe, expect, it } from "vitest";
import { hostRun, ScriptedRunner, untilAborted } from "../host/support/host-test-kit.js";

const codes = (results: readonly { ok: boolean; error?: { code: string } }[]) =>
  results.map((result) => (result.ok ? "ok" : (result.error?.code ?? "?")));

// Red team: per-conversation limits under parallel calls of one step. Each set_delayed_callback
// counted the pending callbacks, awaited, then added its own: calls started together all saw
// the same count and all passed the limit.

describe("limits under parallel calls in one step", () => {
  it("set_delayed_callback: 12 parallel calls against a limit of 10 make 10 callbacks; 2 are too_many_callbacks", async () => {
    const manager = new InProcessCallbackManager({ clock: new ManualClock(0), onFire: () => undefined });
    const { run } = hostRun([callbackToolGroup({ manager })]);
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, index) => run.call("set_delayed_callback", { delay_seconds: 60, message: `wake ${index}` })),
    );
    expect(results.filter((result) => result.ok)).toHaveLength(10);
    expect(results.filter((result) => !result.ok).map((result) => (result.ok ? "" : result.error.code))).toEqual([
      "too_many_callbacks",
      "too_many_callbacks",
    ]);
    expect(await manager.list(run.id)).toHaveLength(10);
    manager.close();
  });

  // Held before this round (kept as fast checks): their check and insert have no await between.
  it("cron_create: five parallel creates of one name make one job; four are duplicate_job_name", async () => {
    const scheduler = new InProcessCronScheduler({
      clock: new ManualClock(0),
      runShell: async () => ({ exitCode: 0, output: "" }),
    });
    const { run } = hostRun([cronToolGroup({ client: scheduler })]);
    const results = await Promise.all(
      Array.from({ length: 5 }, () =>
        run.call("cron_create", { name: "nightly", schedule: "0 0 * * *", execution_type: "shell", command: "true" }),
      ),
    );
    expect(codes(results).sort()).toEqual([
      "duplicate_job_name",
      "duplicate_job_name",
      "duplicate_job_name",
      "duplicate_job_name",
      "ok",
    ]);
    expect(await scheduler.list()).toHaveLength(1);
    scheduler.close();
  });

  it("start_subagent: 5 parallel starts against a limit of 3 start 3; 2 are too_many_subagents", async () => {
    const runner = new ScriptedRunner((request) => untilAborted(request.signal));
    const manager = new InProcessSubagentManager({ runner, clock: new ManualClock(0), maxRunning: 3 });
    const { run } = hostRun([subagentToolGroup({ manager })]);
    const results = await Promise.all(
      Array.from({ length: 5 }, (_, index) => run.call("start_subagent", { task: `job ${index}` })),
    );
    expect(codes(results).sort()).toEqual(["ok", "ok", "ok", "too_many_subagents", "too_many_subagents"]);
    for (const result of results) if (result.ok) await manager.cancel((result.output as { id: string }).id);
  });
});
