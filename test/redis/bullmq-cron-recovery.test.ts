/**
 * BullMQ cron jobs when the creating process dies or Redis stops, with a real `redis-server` and a
 * real process killed with `SIGKILL` before, between and after the two steps of `create` (the
 * stored job, BullMQ's job scheduler). What must hold after each: every scheduler belongs to an
 * active listed job and every active job has a scheduler, so nothing fires no-ops forever unseen
 * and nothing listed active never fires.
 */
import type { ChildProcessByStdio } from "node:child_process";
import { createInterface } from "node:readline";
import type { Readable, Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import { BullMqCronScheduler, type RedisTimeoutError } from "agent-tool-catalog/redis";
import { Queue } from "bullmq";
import { describe, expect, it } from "vitest";
import { capability } from "../support/capabilities.js";
import { spawnNode } from "../support/child-entry.js";
import { useRedisServer } from "../support/redis-server.js";
import { within } from "./support/hanging-redis.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const SCHEDULER = fileURLToPath(new URL("./fixtures/callback-scheduler.mjs", import.meta.url));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const redisCapability = capability("redis");

type KillPoint = "before the first step" | "between the steps" | "after both steps";

describe.skipIf(redisCapability.missing)(redisCapability.label("BullMQ cron: create survives a kill at each step"), () => {
  const redis = useRedisServer();
  const { closers, connection } = redis;
  const scheduler = (prefix: string, operationTimeoutMs?: number) => {
    const made = new BullMqCronScheduler({
      connection: connection(),
      prefix,
      runShell: async () => ({ exitCode: 0, output: "" }),
      ...(operationTimeoutMs === undefined ? {} : { operationTimeoutMs }),
    });
    closers.push(() => made.close());
    return made;
  };
  const queue = (prefix: string) => {
    const made = new Queue("cron", { connection: connection(), prefix });
    closers.push(() => made.close());
    return made;
  };
  const shellJob = (name: string) =>
    ({ name, schedule: "0 0 1 1 *", executionType: "shell", command: "true", timeoutSeconds: 30, conversationId: "c" }) as const;

  /** The fixture process creates the job "crashed" and is killed with -9 at `point`. */
  async function createAndKill(prefix: string, point: KillPoint): Promise<void> {
    const child = spawnNode(SCHEDULER, [String(redis.server.port), prefix, "cron"], {
      cwd: ROOT,
      stdio: ["pipe", "pipe", "inherit"],
    }) as ChildProcessByStdio<Writable, Readable, null>;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    const lines = createInterface({ input: child.stdout });
    const next = () => new Promise<string>((resolve) => lines.once("line", resolve));
    expect(await next()).toBe("ready");
    if (point === "between the steps") {
      // Redis stopped: the first step waits in the socket and lands on resume; the second is never sent.
      redis.server.pause();
      child.stdin.write("go\n");
      expect(await next()).toBe("sent");
    } else if (point === "after both steps") {
      child.stdin.write("go\n");
      // "done" (create returned) and "sent" (a fixed 300 ms) come in either order.
      const both = [await next(), await next()].sort();
      expect(both).toEqual(["sent", expect.stringMatching(/^\{"done":"cron_/)]);
    }
    child.kill("SIGKILL");
    await exited;
    redis.server.resume();
    await sleep(300);
  }

  /** Scheduler ids and active job ids, after a listing (which reconciles). */
  async function armedAndActive(prefix: string) {
    const listed = await scheduler(prefix).list();
    const armed = (await queue(prefix).getJobSchedulers(0, -1)).map((one) => one.key).sort();
    const active = listed
      .filter((job) => job.status === "active")
      .map((job) => job.id)
      .sort();
    return { armed, active, names: listed.map((job) => job.name) };
  }

  for (const point of ["before the first step", "between the steps", "after both steps"] as const) {
    it(`a process killed with -9 ${point} of create leaves every scheduler with an active job and every active job armed`, async () => {
      const prefix = `kill-${point.replaceAll(" ", "-")}`;
      await createAndKill(prefix, point);
      const state = await armedAndActive(prefix);
      expect(state.armed).toEqual(state.active);
      // The name is either free or held by the job that is listed and armed.
      if (point === "before the first step") expect(state.names).toEqual([]);
      else expect(state.names).toEqual(["crashed"]);
      // Control: the name works as expected afterwards (taken when held, free otherwise).
      const again = scheduler(prefix).create(shellJob("crashed"));
      if (point === "before the first step") expect((await again).status).toBe("active");
      else await expect(again).rejects.toMatchObject({ code: "duplicate_job_name" });
    }, 60_000);
  }

  it("a scheduler left without a job (by the former create order) is removed by list and by a worker's pass", async () => {
    const prefix = "orphans";
    const jobs = queue(prefix);
    const cron = scheduler(prefix);
    const kept = await cron.create(shellJob("kept"));
    const orphan = (id: string) =>
      jobs.upsertJobScheduler(id, { pattern: "* * * * *", tz: "UTC" }, { name: "cron", data: { jobId: id } });
    await orphan("cron_orphan1");
    expect((await jobs.getJobSchedulers(0, -1)).map((one) => one.key).sort()).toEqual([kept.id, "cron_orphan1"].sort());
    expect((await cron.list()).map((job) => job.id)).toEqual([kept.id]);
    expect((await jobs.getJobSchedulers(0, -1)).map((one) => one.key)).toEqual([kept.id]);
    // A worker's first pass, without any listing.
    await orphan("cron_orphan2");
    const worker = scheduler(prefix);
    await worker.startWorker({ concurrency: 1 });
    await expect
      .poll(async () => (await jobs.getJobSchedulers(0, -1)).map((one) => one.key), { timeout: 10_000 })
      .toEqual([kept.id]);
    // Control: the active job keeps its scheduler through every pass.
    expect((await cron.get(kept.id, 1))?.job.status).toBe("active");
  }, 60_000);

  it("create, list, get, delete, pause and resume reject with redis_timeout while Redis is stopped; the state converges after", async () => {
    const prefix = "bounded-cron";
    const cron = scheduler(prefix, 400);
    const paused = await cron.create(shellJob("to-pause"));
    const deleted = await cron.create(shellJob("to-delete"));
    const resumed = await cron.create(shellJob("to-resume"));
    await cron.pause(resumed.id);

    redis.server.pause();
    const outcomes: Record<string, unknown> = {};
    const calls: [string, () => Promise<unknown>][] = [
      ["create", () => cron.create(shellJob("new"))],
      ["list", () => cron.list()],
      ["get", () => cron.get(paused.id, 5)],
      ["pause", () => cron.pause(paused.id)],
      ["resume", () => cron.resume(resumed.id)],
      ["delete", () => cron.delete(deleted.id)],
    ];
    const started = Date.now();
    for (const [name, call] of calls) {
      outcomes[name] = await within(
        call().then(
          () => "resolved",
          (error: RedisTimeoutError) => ({ code: error.code, mayHaveRun: error.mayHaveRun }),
        ),
        3_000,
      );
    }
    expect(Date.now() - started).toBeLessThan(10_000);
    redis.server.resume();
    expect(outcomes).toEqual({
      create: { code: "redis_timeout", mayHaveRun: true },
      list: { code: "redis_timeout", mayHaveRun: false },
      get: { code: "redis_timeout", mayHaveRun: false },
      pause: { code: "redis_timeout", mayHaveRun: true },
      resume: { code: "redis_timeout", mayHaveRun: true },
      delete: { code: "redis_timeout", mayHaveRun: true },
    });
    // The unconfirmed changes landed once Redis answered, and the schedulers match them.
    await sleep(1_000);
    const state = await armedAndActive(prefix);
    expect(state.armed).toEqual(state.active);
    const byName = Object.fromEntries((await cron.list({ includeDeleted: true })).map((job) => [job.name, job.status]));
    expect(byName).toEqual({ "to-pause": "paused", "to-delete": "deleted", "to-resume": "active", new: "active" });
  }, 60_000);
});
