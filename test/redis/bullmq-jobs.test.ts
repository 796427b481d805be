import { BullMqCallbackManager, BullMqCronScheduler } from "agent-tool-catalog/redis";
import { Queue } from "bullmq";
import { afterAll, describe, it } from "vitest";
import { capability } from "../support/capabilities.js";
import { type RedisServer, startRedisServer, useRedisServer } from "../support/redis-server.js";
import { clockShiftBeforeMinute } from "../support/shifted-clock.js";
import { loadCronClient } from "./support/cron-client.js";
import { type JobWorker, loadJobWorker, startJobWorker } from "./support/job-workers.js";

const redisCapability = capability("redis");
// The cron test shifts its Redis's clock with a library it compiles.
const ccCapability = capability("cc");
/**
 * How long at least before a minute boundary the cron test's clock is put once its processes are
 * loaded (longer when loading them took longer): what follows (connect, create, pause, resume, 4
 * workers ready) took 0.7 s at load 20. A start slower than this is not a failure: the first
 * firing is then the minute after (60 s more).
 */
const CRON_LEAD_MS = 8_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(redisCapability.missing)(
  redisCapability.label("BullMQ cron jobs and callbacks with real worker processes"),
  () => {
    const server = useRedisServer();
    const { closers, connection } = server;
    const workers: JobWorker[] = [];
    afterAll(async () => {
      for (const worker of workers) await worker.kill();
    });
    const callbackManager = (prefix: string) => {
      const manager = new BullMqCallbackManager({ connection: connection(), prefix });
      closers.push(() => manager.close());
      return manager;
    };
    const workersFor = async (prefix: string, count: number, tag: string) => {
      const started = await Promise.all(
        Array.from({ length: count }, (_, n) => startJobWorker(server.port, prefix, `${tag}${n}`)),
      );
      workers.push(...started);
      return started;
    };

    // Side by side (each its own prefix, workers and scheduler): the per-minute cron test waits for
    // a minute boundary while the others run, instead of after them.
    it.skipIf(ccCapability.missing).concurrent(
      ccCapability.label("cron: names unique, states checked, executions kept, one firing per minute across 4 workers"),
      async ({ expect }) => {
        const prefix = "cron";
        // Its own Redis, whose clock (and the creating host's and the workers', all one clock) is
        // shifted to LEAD_MS before a minute boundary once the processes are loaded: the firing
        // comes seconds later instead of at the machine's next minute (0-60 s away; 5-field cron has
        // no seconds). Nothing here reads this process's clock but to measure durations.
        const loadingFrom = performance.now();
        const loading = [loadCronClient(prefix), ...Array.from({ length: 4 }, (_, n) => loadJobWorker(prefix, `w${n}`))] as const;
        const [loadedClient, ...loadedWorkers] = await Promise.all(loading);
        // A machine that took long to load them is slow for what follows too (0.7 s after 5 s of
        // loading at load 20): half as long again.
        const lead = Math.min(50_000, Math.max(CRON_LEAD_MS, (performance.now() - loadingFrom) / 2));
        let shifted: RedisServer | undefined;
        const workersNow: JobWorker[] = [];
        try {
          const shift = clockShiftBeforeMinute(lead);
          const clockNow = () => Date.now() + shift;
          shifted = await startRedisServer({ clockShiftMs: shift });
          const port = shifted.port;
          const scheduler = await loadedClient.connect(port, shift);
          await expect(
            scheduler.create({
              name: "bad",
              schedule: "*/5 * * * * *",
              executionType: "shell",
              command: "true",
              timeoutSeconds: 5,
              conversationId: "c",
            }),
          ).rejects.toMatchObject({ code: "invalid_schedule" });
          const spec = {
            name: "tick",
            schedule: "* * * * *",
            executionType: "shell" as const,
            command: "true",
            timeoutSeconds: 5,
            conversationId: "c",
          };
          const job = await scheduler.create(spec);
          await expect(scheduler.create(spec)).rejects.toMatchObject({ code: "duplicate_job_name" });
          expect(job.nextRunAt).toBeGreaterThan(clockNow());
          expect((await scheduler.pause(job.id)).status).toBe("paused");
          await expect(scheduler.pause(job.id)).rejects.toMatchObject({ code: "invalid_job_state" });
          expect((await scheduler.resume(job.id)).status).toBe("active");
          workersNow.push(...(await Promise.all(loadedWorkers.map((worker) => worker.connect(port, shift)))));
          const firstDue = (await scheduler.get(job.id, 5))?.job.nextRunAt as number;
          // Wait for one firing (the next minute boundary) plus time for any duplicate.
          await sleep(Math.max(0, firstDue - clockNow()) + 4_000);
          const firings = workersNow.flatMap((worker) => worker.firings).filter((firing) => firing.kind === "cron");
          const context = JSON.stringify({ firstDue, firings });
          // A slow worker start can let the minute before `firstDue` fire too (it was due while the
          // workers came up): it counts, but each minute fires at most once.
          const minutes = firings.map((firing) => Math.floor(firing.at / 60_000) * 60_000);
          expect(new Set(minutes).size, context).toBe(minutes.length);
          const due = firings.filter((firing) => firing.at >= firstDue);
          expect(due, context).toHaveLength(1);
          expect(due[0]?.at).toBeLessThan(firstDue + 3_000);
          const details = await scheduler.get(job.id, 5);
          expect(details?.executions).toHaveLength(firings.length);
          expect(details?.executions[0]).toMatchObject({ status: "succeeded", exitCode: 0 });
          const deleted = await scheduler.delete(job.id);
          expect(deleted.status).toBe("deleted");
          expect(await scheduler.list()).toEqual([]);
          expect((await scheduler.list({ includeDeleted: true })).map((listed) => listed.id)).toEqual([job.id]);
          // The name is free again once deleted.
          expect((await scheduler.create(spec)).status).toBe("active");
          await scheduler.close();
        } finally {
          // Waited for: until they have exited they still talk to the server stopped after them.
          await Promise.all([loadedClient.kill(), ...loadedWorkers.map((worker) => worker.kill())]);
          await shifted?.stop();
        }
        // Five plain-node processes plus up to two cron minutes (a start-up past the lead misses the
        // first): 79 s measured at load 12 with the machine's clock, over 90 s under `nice -n 19`.
      },
      150_000,
    );

    it.concurrent("callbacks keep the spec's limits across processes: 5 s to 1 h, 10 pending per conversation", async ({
      expect,
    }) => {
      const manager = callbackManager("limits");
      await expect(manager.schedule({ conversationId: "c", delaySeconds: 4, message: "m" })).rejects.toMatchObject({
        code: "invalid_delay",
      });
      await expect(manager.schedule({ conversationId: "c", delaySeconds: 3601, message: "m" })).rejects.toMatchObject({
        code: "invalid_delay",
      });
      // Two managers (two processes' worth of connections) racing for the last places: exactly 10 win.
      const other = callbackManager("limits");
      const outcomes = await Promise.allSettled(
        Array.from({ length: 14 }, (_, n) =>
          (n % 2 === 0 ? manager : other).schedule({ conversationId: "c", delaySeconds: 600, message: `${n}` }),
        ),
      );
      expect(outcomes.filter((outcome) => outcome.status === "fulfilled")).toHaveLength(10);
      expect(
        outcomes
          .filter((outcome) => outcome.status === "rejected")
          .map((outcome) => (outcome as PromiseRejectedResult).reason.code),
      ).toEqual(Array(4).fill("too_many_callbacks"));
      const pending = await other.list("c");
      expect(pending).toHaveLength(10);
      // Cancelling from another conversation is refused; from its own it frees a place.
      await expect(manager.cancel("someone-else", pending[0]?.id as string)).rejects.toMatchObject({ code: "unknown_callback" });
      expect((await manager.cancel("c", pending[0]?.id as string)).status).toBe("cancelled");
      await expect(manager.cancel("c", pending[0]?.id as string)).rejects.toMatchObject({ code: "unknown_callback" });
      expect((await manager.schedule({ conversationId: "c", delaySeconds: 600, message: "again" })).status).toBe("pending");
    });

    it.concurrent("each callback fires exactly once across 4 worker processes, and survives every worker being killed", async ({
      expect,
    }) => {
      const prefix = "fire";
      const first = await workersFor(prefix, 4, "a");
      const manager = callbackManager(prefix);
      const scheduled = await Promise.all(
        Array.from({ length: 8 }, (_, n) =>
          manager.schedule({ conversationId: `c${n % 3}`, delaySeconds: 5, message: `wake ${n}` }),
        ),
      );
      const cancelled = scheduled[7];
      await manager.cancel(cancelled?.conversationId as string, cancelled?.id as string);
      // Every worker dies before anything is due; new ones (a restart) must still fire everything.
      for (const worker of first) await worker.kill("SIGKILL");
      const second = await workersFor(prefix, 3, "b");
      const deadline = Date.now() + 15_000;
      const fired = () => second.flatMap((worker) => worker.firings).filter((firing) => firing.kind === "callback");
      while (fired().length < 7 && Date.now() < deadline) await sleep(200);
      await sleep(1_500); // a duplicate would show up here
      const ids = fired().map((firing) => firing.id);
      expect(ids.sort()).toEqual(
        scheduled
          .slice(0, 7)
          .map((callback) => callback.id)
          .sort(),
      );
      expect(first.flatMap((worker) => worker.firings)).toEqual([]);
      for (const firing of fired()) expect(firing.at).toBeGreaterThanOrEqual(firing.dueAt as number);
      expect((await manager.get(scheduled[0]?.id as string))?.status).toBe("fired");
      expect((await manager.get(cancelled?.id as string))?.status).toBe("cancelled");
      // Seven `node --import tsx` workers start in this test: at load 12-16 on 2 cores that alone took
      // 35 s (21 s for the first four, 13 s for the next three), so 40 s failed on a busy machine.
    }, 90_000);

    it.concurrent("cron: a scheduled time that reaches the queue twice runs once (the first job already completed and removed)", async ({
      expect,
    }) => {
      const prefix = "cron-slot";
      const ran: string[] = [];
      const scheduler = new BullMqCronScheduler({
        connection: connection(),
        prefix,
        runShell: async (request) => {
          ran.push(request.command);
          return { exitCode: 0, output: "" };
        },
      });
      closers.push(() => scheduler.close());
      await scheduler.startWorker({ concurrency: 1 });
      const job = await scheduler.create({
        name: "slot",
        schedule: "0 0 1 1 *",
        executionType: "shell",
        command: "echo slot",
        timeoutSeconds: 5,
        conversationId: "c",
      });
      const queue = new Queue("cron", { connection: connection(), prefix });
      closers.push(() => queue.close());
      const slotId = `repeat:${job.id}:1767225600000`;
      const settle = async (count: number) => {
        const deadline = Date.now() + 10_000;
        while (Date.now() < deadline) {
          const executions = (await scheduler.get(job.id, 5))?.executions ?? [];
          if (executions.length >= count && executions.every((execution) => execution.status !== "running")) return;
          await sleep(100);
        }
      };
      await queue.add("cron", { jobId: job.id }, { jobId: slotId, removeOnComplete: true });
      await settle(1);
      expect(ran).toEqual(["echo slot"]);
      // Positive control of the setup: the same slot's job is gone, so BullMQ takes it again.
      expect(await queue.getJob(slotId)).toBeUndefined();
      await queue.add("cron", { jobId: job.id }, { jobId: slotId, removeOnComplete: true });
      const other = `repeat:${job.id}:1735689600000`;
      await queue.add("cron", { jobId: job.id }, { jobId: other, removeOnComplete: true });
      await settle(2);
      await sleep(500);
      // The repeated slot did not run again; the next slot did.
      expect(ran).toEqual(["echo slot", "echo slot"]);
      expect((await scheduler.get(job.id, 5))?.executions).toHaveLength(2);
    }, 30_000);
  },
);
