/**
 * Red team round 7 on the BullMQ scheduler and callbacks, with a real `redis-server`: cron
 * expressions the shared check takes but BullMQ's own parser reads differently or refuses,
 * pause/resume races between two processes' schedulers, and the callback delay limits at their
 * edges. Each refusal has its control (the same thing in an accepted form).
 */
import type { ChildProcessByStdio } from "node:child_process";
import { createInterface } from "node:readline";
import type { Readable, Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import { BullMqCallbackManager, BullMqCronScheduler } from "agent-tool-catalog/redis";
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { describe, expect, it } from "vitest";
import { capability } from "../support/capabilities.js";
import { spawnNode } from "../support/child-entry.js";
import { startRedisServer, useRedisServer } from "../support/redis-server.js";

const SCHEDULER = fileURLToPath(new URL("./fixtures/callback-scheduler.mjs", import.meta.url));
const ROOT = fileURLToPath(new URL("../..", import.meta.url));

const redisCapability = capability("redis");

describe.skipIf(redisCapability.missing)(redisCapability.label("BullMQ cron and callbacks at the edges"), () => {
  const server = useRedisServer();
  const { closers, connection } = server;
  const scheduler = (prefix: string) => {
    const made = new BullMqCronScheduler({
      connection: connection(),
      prefix,
      runShell: async () => ({ exitCode: 0, output: "" }),
    });
    closers.push(() => made.close());
    return made;
  };
  const queue = (prefix: string) => {
    const made = new Queue("cron", { connection: connection(), prefix });
    closers.push(() => made.close());
    return made;
  };
  const shellJob = (name: string, schedule: string) =>
    ({ name, schedule, executionType: "shell", command: "true", timeoutSeconds: 30, conversationId: "c" }) as const;

  it("a schedule BullMQ's parser refuses (a wrapping day range) is invalid_schedule, and nothing is stored", async () => {
    const cron = scheduler("edge-refused");
    for (const schedule of ["0 9 * * SAT-SUN", "0 9 * * MON-SUN"]) {
      await expect(cron.create(shellJob("weekend", schedule))).rejects.toMatchObject({
        code: "invalid_schedule",
        message: expect.stringContaining("the job queue's cron parser refuses it"),
      });
    }
    // No job listed active that never fires, no name held.
    expect(await cron.list({ includeDeleted: true })).toEqual([]);
    // Control: the same days in a form both parsers read, under the same name.
    const created = await cron.create(shellJob("weekend", "0 9 * * 6,0"));
    expect(created.status).toBe("active");
    expect(await queue("edge-refused").getJobScheduler(created.id)).toBeDefined();
  });

  it("a job stored before that check with a schedule BullMQ refuses is listed without a next run, not a failed listing", async () => {
    const cron = scheduler("edge-stored");
    const kept = await cron.create(shellJob("kept", "0 9 * * 6,0"));
    const old = await cron.create(shellJob("old", "0 9 * * 1-5"));
    // What the former check let through, written as the former code stored it.
    const redis = new Redis({ host: "127.0.0.1", port: server.port });
    closers.push(async () => void redis.disconnect());
    const stored = JSON.parse((await redis.hget("edge-stored:cron:jobs", old.id)) as string);
    await redis.hset("edge-stored:cron:jobs", old.id, JSON.stringify({ ...stored, schedule: "0 9 * * SAT-SUN" }));
    const listed = await cron.list();
    expect(listed.find((job) => job.id === old.id)).toMatchObject({ schedule: "0 9 * * SAT-SUN", nextRunAt: undefined });
    // Control: the other job still shows its next run.
    expect(listed.find((job) => job.id === kept.id)?.nextRunAt).toEqual(expect.any(Number));
  });

  it("nextRunAt is when BullMQ fires the job, also where the parsers disagree ('5L': the last Friday)", async () => {
    const cron = scheduler("edge-next");
    const jobs = queue("edge-next");
    for (const schedule of ["0 0 * 2 5L", "0 0 * * 1L", "*/7 3 * * *", "0 0 29 2 *", "0 12 * * 5#5"]) {
      const created = await cron.create(shellJob(`j ${schedule}`, schedule));
      const fired = await jobs.getJobScheduler(created.id);
      expect(created.nextRunAt).toBe(fired?.next);
      const [listed] = (await cron.list()).filter((job) => job.id === created.id);
      expect(listed?.nextRunAt).toBe(fired?.next);
    }
  });

  it("pause and resume racing from two processes leave the scheduler matching the stored status", async () => {
    const a = scheduler("edge-race");
    const b = scheduler("edge-race");
    const jobs = queue("edge-race");
    const created = await a.create(shellJob("raced", "* * * * *"));
    for (let round = 0; round < 30; round++) {
      // Start from paused or active in turn, then one pauses while the other resumes and pauses again.
      await Promise.allSettled([a.pause(created.id), b.resume(created.id), a.resume(created.id), b.pause(created.id)]);
      const stored = (await a.list()).find((job) => job.id === created.id);
      const armed = (await jobs.getJobScheduler(created.id)) !== undefined;
      expect({ round, status: stored?.status, armed }).toEqual({
        round,
        status: stored?.status,
        armed: stored?.status === "active",
      });
    }
    // Control: a plain pause then resume works and arms it.
    await a.pause(created.id).catch(() => undefined);
    expect((await b.resume(created.id)).status).toBe("active");
    expect(await jobs.getJobScheduler(created.id)).toBeDefined();
  }, 60_000);

  it("callback delays at the spec's edges: 5 s and 3,600 s are taken, just outside and not-a-number are refused", async () => {
    const manager = new BullMqCallbackManager({ connection: connection(), prefix: "edge-cb" });
    closers.push(() => manager.close());
    for (const delaySeconds of [4.999, 3600.001, Number.NaN, Number.POSITIVE_INFINITY, -5]) {
      await expect(manager.schedule({ conversationId: "c", delaySeconds, message: "m" })).rejects.toMatchObject({
        code: "invalid_delay",
      });
    }
    const early = await manager.schedule({ conversationId: "c", delaySeconds: 5, message: "min" });
    const late = await manager.schedule({ conversationId: "c", delaySeconds: 3600, message: "max" });
    expect(late.dueAt - late.createdAt).toBe(3_600_000);
    expect(early.dueAt - early.createdAt).toBe(5_000);
    expect((await manager.list("c")).map((callback) => callback.message)).toEqual(["min", "max"]);
  });

  /**
   * Starts the fixture process, stops Redis, lets the process send its first command, kills it
   * with -9 and resumes Redis: whatever the process had sent lands, the rest never comes.
   */
  async function killMidWay(port: number, prefix: string, kind: "callback" | "cron", redis: { pause(): void; resume(): void }) {
    const child = spawnNode(SCHEDULER, [String(port), prefix, kind], {
      cwd: ROOT,
      stdio: ["pipe", "pipe", "inherit"],
    }) as ChildProcessByStdio<Writable, Readable, null>;
    const lines = createInterface({ input: child.stdout });
    const next = () => new Promise<string>((resolve) => lines.once("line", resolve));
    expect(await next()).toBe("ready");
    redis.pause();
    try {
      child.stdin.write("go\n");
      expect(await next()).toBe("sent");
      child.kill("SIGKILL");
      await new Promise((resolve) => child.once("exit", resolve));
    } finally {
      redis.resume();
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }

  it("a process killed while scheduling leaves no callback listed pending that will never fire, and no cron job listed active without a scheduler", async () => {
    const stoppable = await startRedisServer();
    const stoppableConnection = { host: "127.0.0.1", port: stoppable.port, maxRetriesPerRequest: null };
    const manager = new BullMqCallbackManager({ connection: stoppableConnection, prefix: "edge-crash" });
    const callbackJobs = new Queue("callbacks", { connection: stoppableConnection, prefix: "edge-crash" });
    const cron = new BullMqCronScheduler({
      connection: stoppableConnection,
      prefix: "edge-crash",
      runShell: async () => ({ exitCode: 0, output: "" }),
    });
    const cronJobs = new Queue("cron", { connection: stoppableConnection, prefix: "edge-crash" });
    closers.push(async () => {
      await manager.close();
      await callbackJobs.close();
      await cron.close();
      await cronJobs.close();
      await stoppable.stop();
    });
    // Controls: healthy, a callback has its record and its job, a cron job its scheduler.
    const healthy = await manager.schedule({ conversationId: "ok", delaySeconds: 600, message: "m" });
    expect((await manager.list("ok")).map((callback) => callback.id)).toEqual([healthy.id]);
    expect(await callbackJobs.getJob(healthy.id)).toBeDefined();
    const healthyJob = await cron.create(shellJob("ok", "0 0 1 1 *"));
    expect(await cronJobs.getJobScheduler(healthyJob.id)).toBeDefined();

    await killMidWay(stoppable.port, "edge-crash", "callback", stoppable);
    // Every callback listed pending has a job that fires it (else it never fires and holds one
    // of the conversation's 10 places).
    for (const callback of await manager.list("c")) {
      expect({ id: callback.id, job: (await callbackJobs.getJob(callback.id))?.id }).toEqual({
        id: callback.id,
        job: callback.id,
      });
    }
    await killMidWay(stoppable.port, "edge-crash", "cron", stoppable);
    for (const job of await cron.list()) {
      expect({ name: job.name, armed: (await cronJobs.getJobScheduler(job.id)) !== undefined }).toEqual({
        name: job.name,
        armed: true,
      });
    }
  }, 60_000);
});
