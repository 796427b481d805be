/**
 * Red team round 23, a variant of the approval broker's repeated ids: the in-process subagent
 * manager and cron scheduler keep their work in tables keyed by ids the host may make
 * (`createId`). An id that repeats (a clock's millisecond, a counter per process restarted with
 * the table kept) replaced the entry of work still going: the replaced subagent went on running,
 * no longer counted against `maxRunning` and no longer cancellable; the replaced cron job kept its
 * timer and ran on schedule after every job was deleted. Work the host limits must stay in its
 * table: a repeated id is refused.
 */
import { InProcessCronScheduler, InProcessSubagentManager, ManualClock } from "agent-tool-catalog/host";
import { describe, expect, it } from "vitest";
import { ScriptedRunner, untilAborted } from "../host/support/host-test-kit.js";
import { escapeAttempt } from "./support/escape-attempt.js";

const request = (task: string) => ({ ownerId: "run-1", task, profile: "full", model: undefined }) as never;

/** Subagents whose runner waits until cancelled; `live` counts those still running. */
function subagents(createId: () => string) {
  let live = 0;
  const runner = new ScriptedRunner(async (run) => {
    live++;
    try {
      return await untilAborted(run.signal);
    } finally {
      live--;
    }
  });
  const manager = new InProcessSubagentManager({ runner, maxRunning: 2, createId });
  return { manager, live: () => live };
}

function cron(createId: (kind: "job" | "execution") => string) {
  const clock = new ManualClock(0);
  const ran: string[] = [];
  const scheduler = new InProcessCronScheduler({
    clock,
    createId,
    runShell: async ({ command }: { command: string }) => {
      ran.push(command);
      return { exitCode: 0, output: "" };
    },
  } as never);
  return { clock, scheduler, ran };
}

const job = (name: string) => ({
  name,
  schedule: "* * * * *",
  executionType: "shell" as const,
  command: `echo ${name}`,
  timeoutSeconds: 10,
  conversationId: "run-1",
});

describe("ids the host makes for work it limits", () => {
  escapeAttempt(
    "resources",
    "subagents: a repeated id does not let more run than maxRunning, nor leave one uncancellable",
    async () => {
      const { manager, live } = subagents(() => "sub_same");
      const started: string[] = [];
      for (const task of ["a", "b", "c", "d"]) {
        try {
          started.push((await manager.start(request(task))).id);
        } catch {
          // refused: the limit or the repeated id
        }
      }
      await expect.poll(live).toBeGreaterThan(0);
      expect(live()).toBeLessThanOrEqual(2);
      for (const id of new Set(started)) await manager.cancel(id);
      await expect.poll(live, { timeout: 2_000 }).toBe(0);
    },
  );

  escapeAttempt("resources", "cron: a repeated job id does not leave a job running after every job is deleted", async () => {
    const { clock, scheduler, ran } = cron((kind) => (kind === "job" ? "cron_same" : `exec_${Math.random()}`));
    for (const name of ["nightly", "hourly"]) {
      try {
        await scheduler.create(job(name));
      } catch {
        // refused: the repeated id
      }
    }
    for (const listed of await scheduler.list()) await scheduler.delete(listed.id);
    await clock.advance(5 * 60_000);
    expect(ran).toEqual([]);
    scheduler.close();
  });

  it("controls: ids of their own run up to the limit, are all cancelled, and deleted jobs stop", async () => {
    let next = 0;
    const { manager, live } = subagents(() => `sub_${++next}`);
    const started = [await manager.start(request("a")), await manager.start(request("b"))];
    await expect(manager.start(request("c"))).rejects.toMatchObject({ code: "too_many_subagents" });
    await expect.poll(live).toBe(2);
    for (const { id } of started) await manager.cancel(id);
    await expect.poll(live, { timeout: 2_000 }).toBe(0);

    const { clock, scheduler, ran } = cron((kind) => `${kind}_${++next}`);
    await scheduler.create(job("nightly"));
    await scheduler.create(job("hourly"));
    await clock.advance(60_000);
    expect(ran.sort()).toEqual(["echo hourly", "echo nightly"]);
    for (const listed of await scheduler.list()) await scheduler.delete(listed.id);
    await clock.advance(5 * 60_000);
    expect(ran).toHaveLength(2);
    scheduler.close();
  });
});
