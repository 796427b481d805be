/**
 * Red team round 37, follow-up: one record another program (or version) wrote, unreadable, read
 * on its own, and `refreshChildRuns` over children whose records cannot be read.
 *
 * - Single-record reads (`BullMqCallbackManager.get`, `BullMqCronScheduler.get`, a subagent's or
 *   workflow's snapshot) threw a bare `SyntaxError` (cut JSON) or answered a record with its
 *   fields missing; each is now a `ConfigurationError` `invalid_stored_record` naming the key.
 * - `refreshChildRuns` stopped at the first unreadable child: those after it were not refreshed.
 *   It now refreshes every other child, leaves the unreadable one as last seen and reports it to
 *   `onUnreadable`; a Redis that does not answer still rejects.
 *
 * - The Lua scripts that change a record in place (a callback's claim for firing and its end, as a
 *   cancel does; a cron job's pause, resume and delete) decoded it with a bare `cjson.decode`: an
 *   unreadable record failed them with Redis's own `ReplyError`; now `invalid_stored_record` too.
 *
 * Controls: a good record beside each bad one is read (and refreshed, cancelled, paused, fired).
 */
import { createRegistry } from "agent-tool-catalog";
import { InProcessSubagentManager, refreshChildRuns, type UnreadableChildRun } from "agent-tool-catalog/host";
import { BullMqCallbackManager, RedisSubagentManager } from "agent-tool-catalog/redis";
import { Queue } from "bullmq";
import type { Redis } from "ioredis";
import { beforeAll, describe, expect, it } from "vitest";
import { capability } from "../support/capabilities.js";
import { useRedisServer } from "../support/redis-server.js";
import { schedulerWithOneJob } from "./support/one-job-scheduler.js";

const UNREADABLE = ['{"id":"cut', "null", "42", "[]", '{"id":"x"}'];
const refuse = { runPrompt: () => Promise.reject(new Error("this process runs no subagent")) };

const unreadable = (key: string) =>
  expect.objectContaining({ name: "ConfigurationError", code: "invalid_stored_record", data: { field: "record", key } });

/** A finished subagent's job record as RedisSubagentManager stores it. */
function finishedSubagent(id: string) {
  return JSON.stringify({
    id,
    ownerId: "conv",
    task: "look around",
    status: "completed",
    startedAt: 1_000,
    finishedAt: 2_000,
    output: "done",
  });
}

const redisCapability = capability("redis");
describe.skipIf(redisCapability.missing)(redisCapability.label("Redis single-record reads of unreadable records"), () => {
  const server = useRedisServer();
  let redis: Redis;
  beforeAll(() => {
    redis = server.client();
  });

  it("BullMqCallbackManager.get names the unreadable record's key; a real callback reads", async () => {
    const prefix = "r37bcb";
    const manager = new BullMqCallbackManager({ connection: server.connection(), prefix });
    try {
      const real = await manager.schedule({ conversationId: "conv", delaySeconds: 600, message: "wake up" });
      for (const [index, json] of UNREADABLE.entries()) {
        const key = `${prefix}:callbacks:record:planted-${index}`;
        await redis.set(key, json);
        await expect(manager.get(`planted-${index}`)).rejects.toEqual(unreadable(key));
      }
      expect(await manager.get(real.id)).toMatchObject({ id: real.id, status: "pending", message: "wake up" });
    } finally {
      await manager.close();
    }
  });

  it("BullMqCronScheduler.get names the unreadable job's key; a real job reads", async () => {
    const prefix = "r37bcron";
    const { scheduler, job } = await schedulerWithOneJob(server.connection(), prefix);
    try {
      for (const [index, json] of UNREADABLE.entries()) {
        await redis.hset(`${prefix}:cron:jobs`, `planted-${index}`, json);
        await expect(scheduler.get(`planted-${index}`, 5)).rejects.toEqual(unreadable(`${prefix}:cron:jobs planted-${index}`));
      }
      expect((await scheduler.get(job.id, 5))?.job).toMatchObject({ id: job.id, name: "nightly" });
    } finally {
      await scheduler.close();
    }
  });

  it("a callback's cancel and firing, and a cron job's pause, resume and delete, name the unreadable record's key", async () => {
    const prefix = "r37bscript";
    const fired: string[] = [];
    const manager = new BullMqCallbackManager({
      connection: server.connection(),
      prefix,
      onFire: (callback) => {
        fired.push(callback.id);
      },
    });
    const queue = new Queue("callbacks", { connection: server.connection(), prefix });
    const { scheduler, job } = await schedulerWithOneJob(server.connection(), `${prefix}cron`);
    try {
      for (const [index, json] of UNREADABLE.entries()) {
        const key = `${prefix}:callbacks:record:planted-${index}`;
        await redis.set(key, json);
        await expect(manager.cancel("conv", `planted-${index}`)).rejects.toEqual(unreadable(key));
        const jobsKey = `${prefix}cron:cron:jobs`;
        await redis.hset(jobsKey, `planted-${index}`, json);
        for (const change of [scheduler.pause, scheduler.resume, scheduler.delete]) {
          await expect(change.call(scheduler, `planted-${index}`)).rejects.toEqual(unreadable(`${jobsKey} planted-${index}`));
        }
      }
      expect(await scheduler.pause(job.id)).toMatchObject({ id: job.id, status: "paused" });
      const waiting = await manager.schedule({ conversationId: "conv", delaySeconds: 600, message: "m" });
      expect(await manager.cancel("conv", waiting.id)).toMatchObject({ status: "cancelled" });

      // Firing: two callbacks' records overwritten before they are due (cut JSON; every text field
      // but a due time that is not a number, which the claim compared as nil); the one beside fires.
      const cut = await manager.schedule({ conversationId: "conv", delaySeconds: 5, message: "cut" });
      const noDue = await manager.schedule({ conversationId: "conv", delaySeconds: 5, message: "no due time" });
      const kept = await manager.schedule({ conversationId: "conv", delaySeconds: 5, message: "kept" });
      await redis.set(`${prefix}:callbacks:record:${cut.id}`, '{"id":"cut');
      await redis.set(`${prefix}:callbacks:record:${noDue.id}`, JSON.stringify({ ...noDue, dueAt: "soon" }));
      // Due now, without waiting the 5 s minimum: the kept record's due time moved back, the jobs promoted.
      await redis.set(`${prefix}:callbacks:record:${kept.id}`, JSON.stringify({ ...kept, dueAt: kept.createdAt }));
      for (const delayed of await queue.getDelayed()) await delayed.promote();
      await manager.startWorker({ concurrency: 3 });
      const deadline = Date.now() + 15_000;
      let reasons: string[] = [];
      while (Date.now() < deadline && (reasons.length < 2 || fired.length === 0)) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        reasons = (await queue.getFailed()).map((failed) => failed.failedReason);
      }
      expect(fired).toEqual([kept.id]);
      expect(reasons.sort()).toEqual(
        [cut.id, noDue.id]
          .sort()
          .map((id) => expect.stringContaining(`${prefix}:callbacks:record:${id}" is not one this library stored`)),
      );
    } finally {
      await manager.close();
      await queue.close();
      await scheduler.close();
    }
  });

  it("a subagent's snapshot names the key; refreshChildRuns refreshes every other child and reports the unreadable ones", async () => {
    const prefix = "r37bsub";
    const subagents = new RedisSubagentManager({ redis, prefix, local: new InProcessSubagentManager({ runner: refuse }) });
    try {
      for (const [index, json] of UNREADABLE.entries()) {
        await redis.hset(`${prefix}:subagent:bad-${index}`, { running: "0", leaseUntil: "0", snapshot: json });
      }
      // A readable snapshot whose fields no child run can have (a start time that is not a number).
      await redis.hset(`${prefix}:subagent:odd`, {
        running: "0",
        leaseUntil: "0",
        snapshot: JSON.stringify({ id: "odd", ownerId: "conv", task: "t", status: "completed", startedAt: "soon" }),
      });
      await redis.hset(`${prefix}:subagent:good`, { running: "0", leaseUntil: "0", snapshot: finishedSubagent("good") });
      await expect(subagents.get("bad-0")).rejects.toEqual(unreadable(`${prefix}:subagent:bad-0 snapshot`));
      expect(await subagents.get("good")).toMatchObject({ id: "good", status: "completed" });

      const run = createRegistry().createRun();
      // The unreadable children first: before, the refresh stopped at the first and left "good" running.
      const ids = [...UNREADABLE.map((_, index) => `bad-${index}`), "odd", "good"];
      for (const id of ids) run.recordChildRun({ kind: "subagent", id, status: "running", startedAt: 1_000, label: id });
      const reported: UnreadableChildRun[] = [];
      const children = await refreshChildRuns(run, { subagents }, { onUnreadable: (entry) => reported.push(entry) });
      expect(children.find((child) => child.id === "good")).toMatchObject({ status: "completed", finishedAt: 2_000 });
      expect(children.filter((child) => child.id !== "good").map((child) => [child.id, child.status])).toEqual(
        ids.slice(0, -1).map((id) => [id, "running"]),
      );
      expect(reported.map((entry) => [entry.child.id, entry.code])).toEqual([
        ...UNREADABLE.map((_, index) => [`bad-${index}`, "invalid_stored_record"]),
        ["odd", "invalid_child_run"],
      ]);
      expect(reported[0]?.message).toContain(`${prefix}:subagent:bad-0`);
      // Without onUnreadable the refresh goes on the same way.
      const again = createRegistry().createRun();
      again.recordChildRun({ kind: "subagent", id: "bad-0", status: "running", startedAt: 1_000 });
      again.recordChildRun({ kind: "subagent", id: "good", status: "running", startedAt: 1_000 });
      expect((await refreshChildRuns(again, { subagents })).map((child) => child.status)).toEqual(["running", "completed"]);
    } finally {
      subagents.close();
    }
  });

  it("refreshChildRuns still rejects when Redis does not answer", async () => {
    const prefix = "r37bto";
    const subagents = new RedisSubagentManager({
      redis,
      prefix,
      operationTimeoutMs: 300,
      local: new InProcessSubagentManager({ runner: refuse }),
    });
    const run = createRegistry().createRun();
    run.recordChildRun({ kind: "subagent", id: "any", status: "running", startedAt: 1_000 });
    const reported: UnreadableChildRun[] = [];
    server.server.pause();
    try {
      await expect(refreshChildRuns(run, { subagents }, { onUnreadable: (entry) => reported.push(entry) })).rejects.toMatchObject(
        {
          code: "redis_timeout",
        },
      );
    } finally {
      server.server.resume();
      subagents.close();
    }
    expect(reported).toEqual([]);
  });
});
