import { cronToolGroup, InProcessCronScheduler, ManualClock, parseCronSchedule } from "agent-tool-catalog/host";
import { describe, expect, it } from "vitest";
import { failure, hostRun, record } from "../host/support/host-test-kit.js";

// Red team: schedules a model writes for cron_create. A schedule that never matches must be
// invalid_schedule saying so; croner overflowed its stack searching some of them, and the
// RangeError escaped parseCronSchedule (the model got tool_failed, "Maximum call stack size
// exceeded", nothing it could act on).

const START = Date.UTC(2026, 2, 1);

function cronRun() {
  const scheduler = new InProcessCronScheduler({
    clock: new ManualClock(START),
    runShell: async () => ({ exitCode: 0, output: "" }),
  });
  return { run: hostRun([cronToolGroup({ client: scheduler })]).run, scheduler };
}

const NEVER = ["0-59 0-23 31 2,4,6,9,11 *", "* * 31 2,4,6,9,11 *", "0 0 31 2 *", "0 0 30 2 *"];

describe("cron_create with hostile schedules", () => {
  it.each(NEVER)("%s never matches: invalid_schedule saying so", async (schedule) => {
    const { run, scheduler } = cronRun();
    const error = failure(await run.call("cron_create", { name: "never", schedule, execution_type: "shell", command: "true" }));
    expect(error.code).toBe("invalid_schedule");
    expect(error.message).toContain("never matches");
    expect(await scheduler.list()).toEqual([]);
    expect(() => parseCronSchedule(schedule)).toThrow(expect.objectContaining({ code: "invalid_schedule" }));
  });

  it("control: a schedule that matches once in decades is created with its next run", async () => {
    const { run } = cronRun();
    const job = record(
      await run.call("cron_create", { name: "rare", schedule: "0 0 * 2 1#5", execution_type: "shell", command: "true" }),
    );
    expect(String(job.next_run_at ?? JSON.stringify(job))).toContain("2044-02-29");
  });

  // Held before this round (kept as fast checks).
  it.each(["0 0 * * *\u0000", "*/99999 * * * *", "\ud800 * * * *", "0 0 1 1 1 1 1", "@reboot", "* * * * * *"])(
    "%j is invalid_schedule",
    async (schedule) => {
      const { run } = cronRun();
      const error = failure(await run.call("cron_create", { name: "bad", schedule, execution_type: "shell", command: "true" }));
      expect(error.code).toBe("invalid_schedule");
    },
  );
});
