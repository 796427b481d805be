/**
 * README error table: `scheduler_closed`, "the scheduler is closed". Closing an in-process cron
 * scheduler aborts the executions in flight with it: the host's shell runner sees its signal abort
 * with a `scheduler_closed` ToolError, and the execution is recorded as ended by the close (what
 * `cron_get` shows the model). Control: an execution that finished before the close keeps its record.
 */
import { ToolError } from "agent-tool-catalog";
import { describe, expect, it } from "vitest";
import { cronToolGroup, InProcessCronScheduler, ManualClock } from "../../src/host/index.js";
import { hostRun, record, untilAborted } from "./support/host-test-kit.js";

const START = Date.UTC(2025, 0, 1, 0, 0, 0);

describe("closing the cron scheduler", () => {
  it("aborts the execution in flight with scheduler_closed", async () => {
    const clock = new ManualClock(START);
    const signals = new Map<string, AbortSignal>();
    const scheduler = new InProcessCronScheduler({
      clock,
      runShell: async (request) => {
        signals.set(request.command, request.signal);
        return request.command === "hang" ? untilAborted(request.signal) : { exitCode: 0, output: "quick done" };
      },
    });
    const { run } = hostRun([cronToolGroup({ client: scheduler })]);
    const create = async (command: string) =>
      record(await run.call("cron_create", { name: command, schedule: "* * * * *", execution_type: "shell", command }));
    const hanging = await create("hang");
    const quick = await create("quick");
    await clock.advance(60_000);
    expect(signals.size).toBe(2);

    scheduler.close();
    await scheduler.idle();
    const reason = signals.get("hang")?.reason as unknown;
    expect(reason).toBeInstanceOf(ToolError);
    expect(reason).toMatchObject({ code: "scheduler_closed" });
    const [ended] = record(await run.call("cron_get", { id: hanging.id })).recent_executions as Record<string, unknown>[];
    expect(ended).toMatchObject({ status: "failed", error: "The cron scheduler was closed." });
    // Control: the execution that had finished before the close is recorded as it ended.
    const [done] = record(await run.call("cron_get", { id: quick.id })).recent_executions as Record<string, unknown>[];
    expect(done).toMatchObject({ status: "succeeded", output: "quick done" });
  });
});
