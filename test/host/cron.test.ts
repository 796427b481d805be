import { describe, expect, it } from "vitest";
import {
  type Clock,
  type CronContinuationRequest,
  type CronShellRequest,
  cronToolGroup,
  InProcessCronScheduler,
  type InProcessCronSchedulerOptions,
  ManualClock,
  parseCronSchedule,
} from "../../src/host/index.js";
import { failure, hostRun, record, toolNames, untilAborted } from "./support/host-test-kit.js";

const START = Date.UTC(2025, 0, 1, 0, 0, 0);
const MINUTE = 60_000;

function cronRun(options: InProcessCronSchedulerOptions = {}, context: Record<string, unknown> = {}) {
  const clock = new ManualClock(START);
  const shellCalls: CronShellRequest[] = [];
  const turns: CronContinuationRequest[] = [];
  const scheduler = new InProcessCronScheduler({
    clock,
    runShell: async (request) => {
      shellCalls.push(request);
      return {
        exitCode: request.command.includes("fail") ? 2 : 0,
        output: `ran ${request.command} at ${new Date(clock.now()).toISOString()}`,
      };
    },
    continueConversation: async (request) => {
      turns.push(request);
      return "continued";
    },
    ...options,
  });
  const { run } = hostRun([cronToolGroup({ client: scheduler })], { context });
  return { run, clock, scheduler, shellCalls, turns };
}

async function advance(setup: { clock: ManualClock; scheduler: InProcessCronScheduler }, ms: number) {
  await setup.clock.advance(ms);
  await setup.scheduler.idle();
}

describe("cron tool group", () => {
  it("is present only with a client and the switch on", () => {
    expect(toolNames(hostRun([cronToolGroup({})]).registry)).toEqual([]);
    expect(toolNames(hostRun([cronToolGroup({ client: new InProcessCronScheduler(), enableCron: false })]).registry)).toEqual([]);
    expect(toolNames(hostRun([cronToolGroup({ client: new InProcessCronScheduler() })]).registry)).toEqual([
      "cron_create",
      "cron_list",
      "cron_get",
      "cron_delete",
      "cron_pause",
      "cron_resume",
    ]);
  });
});

describe("cron schedules", () => {
  it.each([
    ["*/5 * * * * *", /6 fields given; seconds are not supported/],
    ["* * * *", /expected 5 fields .* got 4/],
    ["@daily", /expected 5 fields .* got 1/],
    ["61 * * * *", /the minute field "61" is not valid/],
    ["* 25 * * *", /the hour field "25" is not valid/],
    ["* * 0 * *", /the day-of-month field "0" is not valid/],
    ["* * * 13 *", /the month field "13" is not valid/],
    ["* * * * 8", /the day-of-week field "8" is not valid/],
    ["*/0 * * * *", /the minute field "\*\/0" is not valid/],
    ["abc * * * *", /the minute field "abc" is not valid/],
    ["? * * * *", /the minute field uses "\?"/],
    ["0 0 30 2 *", /never matches/],
  ])("refuses %j with a clear error", async (schedule, message) => {
    const { run } = cronRun();
    const error = failure(await run.call("cron_create", { name: "job", schedule, execution_type: "shell", command: "echo hi" }));
    expect(error.code).toBe("invalid_schedule");
    expect(error.message).toMatch(message);
    expect(error.hint).toContain("5 fields in UTC");
  });

  it("reads schedules in UTC", () => {
    const schedule = parseCronSchedule(" 30   9 * *  MON-FRI ");
    expect(schedule.expression).toBe("30 9 * * MON-FRI");
    expect(new Date(schedule.nextAfter(START) ?? 0).toISOString()).toBe("2025-01-01T09:30:00.000Z");
  });

  it("reads '5L' in day-of-week as the last Friday of the month, as cron (and BullMQ) do", () => {
    const next = (expression: string, after: number) =>
      new Date(parseCronSchedule(expression).nextAfter(after) ?? 0).toISOString();
    const december = Date.UTC(2026, 11, 3);
    // croner alone read "5L" as every Friday (2026-12-04 here).
    expect(next("0 0 * * 5L", december)).toBe("2026-12-25T00:00:00.000Z");
    expect(next("0 0 * 2 FRIL", december)).toBe("2027-02-26T00:00:00.000Z");
    expect(next("0 0 * * 1L,5L", december)).toBe("2026-12-25T00:00:00.000Z");
    expect(parseCronSchedule("0 0 * * 5L").expression).toBe("0 0 * * 5L");
    // Controls: a plain weekday is every such day; "L" in day-of-month is the month's last day.
    expect(next("0 0 * * 5", december)).toBe("2026-12-04T00:00:00.000Z");
    expect(next("0 0 L * *", december)).toBe("2026-12-31T00:00:00.000Z");
  });
});

describe("cron jobs", () => {
  it("requires an explicit execution type and the matching field", async () => {
    const { run } = cronRun();
    const base = { name: "job", schedule: "* * * * *" };
    expect(failure(await run.call("cron_create", { ...base, command: "ls" })).code).toBe("invalid_input");
    expect(failure(await run.call("cron_create", { ...base, execution_type: "shell" })).code).toBe("missing_command");
    expect(failure(await run.call("cron_create", { ...base, execution_type: "shell", command: "   " })).code).toBe(
      "missing_command",
    );
    expect(failure(await run.call("cron_create", { ...base, execution_type: "harness" })).code).toBe("missing_prompt");
    expect(failure(await run.call("cron_create", { ...base, execution_type: "harness", prompt: "hi", command: "ls" })).code).toBe(
      "unexpected_command",
    );
    expect(failure(await run.call("cron_create", { ...base, execution_type: "shell", command: "ls", prompt: "hi" })).code).toBe(
      "unexpected_prompt",
    );
  });

  it("runs shell jobs on schedule and records their output; cron_get shows the 5 most recent, newest first", async () => {
    const setup = cronRun();
    const job = record(
      await setup.run.call("cron_create", { name: "tick", schedule: "*/5 * * * *", execution_type: "shell", command: "date" }),
    );
    expect(job).toMatchObject({
      status: "active",
      timeout_seconds: 30,
      schedule: "*/5 * * * * (UTC)",
      next_run_at: "2025-01-01T00:05:00.000Z",
    });
    await advance(setup, 35 * MINUTE);
    expect(setup.shellCalls).toHaveLength(7);
    expect(setup.shellCalls[0]?.timeoutMs).toBe(30_000);
    const details = record(await setup.run.call("cron_get", { id: job.id }));
    const recent = details.recent_executions as Record<string, unknown>[];
    expect(recent).toHaveLength(5);
    expect(recent[0]).toMatchObject({ status: "succeeded", exit_code: 0, output: "ran date at 2025-01-01T00:35:00.000Z" });
    expect(recent[4]?.started_at).toBe("2025-01-01T00:15:00.000Z");
  });

  it("records a failing exit code and a timeout, and skips a run that would overlap", async () => {
    const setup = cronRun({
      runShell: async (request) => (request.command === "hang" ? untilAborted(request.signal) : { exitCode: 1, output: "boom" }),
    });
    const failing = record(
      await setup.run.call("cron_create", { name: "fail", schedule: "* * * * *", execution_type: "shell", command: "false" }),
    );
    const hanging = record(
      await setup.run.call("cron_create", {
        name: "hang",
        schedule: "* * * * *",
        execution_type: "shell",
        command: "hang",
        timeout_seconds: 150,
      }),
    );
    await setup.clock.advance(3 * MINUTE);
    expect((record(await setup.run.call("cron_get", { id: failing.id })).recent_executions as unknown[])[0]).toMatchObject({
      status: "failed",
      exit_code: 1,
      output: "boom",
    });
    const statuses = (record(await setup.run.call("cron_get", { id: hanging.id })).recent_executions as { status: string }[]).map(
      (e) => e.status,
    );
    expect(statuses).toEqual(["skipped", "skipped", "running"]);
    await advance(setup, 30_000);
    const after = record(await setup.run.call("cron_get", { id: hanging.id })).recent_executions as Record<string, unknown>[];
    expect(after.map((execution) => execution.status)).toEqual(["skipped", "skipped", "timed_out"]);
    expect(after[2]).toMatchObject({
      error: "Timed out after 150 s.",
      started_at: "2025-01-01T00:01:00.000Z",
      finished_at: "2025-01-01T00:03:30.000Z",
    });
  });

  it("continues the creating conversation for harness jobs", async () => {
    const setup = cronRun({}, { conversationId: "conversation-7" });
    await setup.run.call("cron_create", {
      name: "standup",
      schedule: "0 9 * * *",
      execution_type: "harness",
      prompt: "Summarise yesterday's commits.",
    });
    await advance(setup, 9 * 60 * MINUTE);
    expect(setup.turns.map((turn) => [turn.conversationId, turn.prompt])).toEqual([
      ["conversation-7", "Summarise yesterday's commits."],
    ]);
  });

  it("pauses, resumes and soft-deletes jobs", async () => {
    const setup = cronRun();
    const job = record(
      await setup.run.call("cron_create", { name: "tick", schedule: "* * * * *", execution_type: "shell", command: "date" }),
    );
    const paused = record(await setup.run.call("cron_pause", { id: job.id }));
    expect(paused.status).toBe("paused");
    // a paused job has no next run (results drop undefined fields, so the key is absent)
    expect(paused.next_run_at).toBeUndefined();
    await advance(setup, 5 * MINUTE);
    expect(setup.shellCalls).toHaveLength(0);
    expect(failure(await setup.run.call("cron_pause", { id: job.id })).code).toBe("invalid_job_state");
    expect(record(await setup.run.call("cron_resume", { id: job.id })).status).toBe("active");
    await advance(setup, 2 * MINUTE);
    expect(setup.shellCalls).toHaveLength(2);
    expect(record(await setup.run.call("cron_delete", { id: job.id })).status).toBe("deleted");
    await advance(setup, 5 * MINUTE);
    expect(setup.shellCalls).toHaveLength(2);
    expect(await setup.run.call("cron_list", {})).toMatchObject({ ok: true, output: [] });
    expect(await setup.run.call("cron_list", { include_deleted: true })).toMatchObject({
      ok: true,
      output: [{ id: job.id, status: "deleted" }],
    });
    expect(record(await setup.run.call("cron_get", { id: job.id })).recent_executions).toHaveLength(2);
    expect(failure(await setup.run.call("cron_resume", { id: job.id })).code).toBe("invalid_job_state");
    expect(failure(await setup.run.call("cron_get", { id: "cron_nope" })).code).toBe("unknown_job");
    expect(setup.clock.pendingTimers).toBe(0);
  });

  it("refuses duplicate names, and execution types the scheduler cannot run", async () => {
    const { run } = cronRun();
    const job = { name: "tick", schedule: "* * * * *", execution_type: "shell", command: "date" };
    record(await run.call("cron_create", job));
    expect(failure(await run.call("cron_create", job)).code).toBe("duplicate_job_name");
    const bare = hostRun([cronToolGroup({ client: new InProcessCronScheduler({ clock: new ManualClock(START) }) })]).run;
    expect(failure(await bare.call("cron_create", job))).toMatchObject({
      code: "shell_execution_unavailable",
      hint: expect.stringContaining("harness"),
    });
    expect(
      failure(await bare.call("cron_create", { ...job, execution_type: "harness", command: undefined, prompt: "x" })).code,
    ).toBe("harness_execution_unavailable");
  });
});

/** The host's clock as a real one behaves: timers on a monotonic clock, `now()` on a wall clock the system may set back. */
class WallClock implements Clock {
  offsetMs = 0;
  constructor(readonly timers: ManualClock) {}
  now(): number {
    return this.timers.now() + this.offsetMs;
  }
  setTimeout(callback: () => void, delayMs: number): unknown {
    return this.timers.setTimeout(callback, delayMs);
  }
  clearTimeout(handle: unknown): void {
    this.timers.clearTimeout(handle);
  }
}

describe("cron and the wall clock", () => {
  it("a wall clock a moment behind the timer (set back, NTP slew) does not fire the same slot twice", async () => {
    const timers = new ManualClock(START);
    const clock = new WallClock(timers);
    const ran: string[] = [];
    const scheduler = new InProcessCronScheduler({
      clock,
      runShell: async (request) => {
        ran.push(new Date(clock.now()).toISOString());
        return { exitCode: 0, output: request.command };
      },
    });
    await scheduler.create({
      name: "hourly",
      schedule: "0 * * * *",
      executionType: "shell",
      command: "x",
      timeoutSeconds: 30,
      conversationId: "c",
    });
    // Control: on time, one firing per hour.
    await timers.advance(60 * MINUTE);
    await scheduler.idle();
    expect(ran).toEqual(["2025-01-01T01:00:00.000Z"]);
    // The wall clock is set back 2 s while the next timer waits: it fires when the wall reads 01:59:58.
    clock.offsetMs = -2_000;
    await timers.advance(60 * MINUTE);
    await scheduler.idle();
    await timers.advance(5_000);
    await scheduler.idle();
    expect(ran).toEqual(["2025-01-01T01:00:00.000Z", "2025-01-01T01:59:58.000Z"]);
    // And the hour after fires once, at its own slot.
    await timers.advance(60 * MINUTE);
    await scheduler.idle();
    expect(ran).toHaveLength(3);
    await scheduler.close();
  });
});
