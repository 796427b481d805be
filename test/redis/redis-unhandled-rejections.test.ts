/**
 * No promise of the Redis-backed parts rejects with nobody listening: Node's default for an
 * unhandled rejection ends the host process, so library code must hand every failure either to
 * its caller or to a handler of its own. With a real `redis-server`:
 *
 * - a cron firing on a worker that has no runner for its job, then `close()`: the abort promise
 *   made for the runner's race rejected at close with nobody racing it (the defect this found);
 * - `list()` while Redis is stopped (`SIGSTOP`): the caller gets the `redis_timeout`, and nothing
 *   else rejects when Redis answers late;
 * - the background passes (the cron reconciler, the callback sweeper, a subagent's lease renewal
 *   and its running slot's renewal) while Redis refuses their commands (an ACL that denies them):
 *   each pass fails (Redis's ACL LOG shows the denied commands) and is retried, never unhandled.
 *
 * Each test records `unhandledRejection` itself and restores the listeners after.
 */
import { createRegistry } from "agent-tool-catalog";
import { InProcessSubagentManager } from "agent-tool-catalog/host";
import {
  BullMqCallbackManager,
  BullMqCronScheduler,
  RedisSubagentManager,
  type RedisTimeoutError,
} from "agent-tool-catalog/redis";
import { Queue } from "bullmq";
import type { Redis } from "ioredis";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { capability } from "../support/capabilities.js";
import { useRedisServer } from "../support/redis-server.js";
import { within } from "./support/hanging-redis.js";

const redisCapability = capability("redis");
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Time for rejections of the last step to be reported (the event fires once the microtasks ran). */
const SETTLE_MS = 300;

describe.skipIf(redisCapability.missing)(redisCapability.label("Redis-backed parts: no unhandled rejection"), () => {
  const redis = useRedisServer();
  const { closers, connection } = redis;
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  beforeEach(() => {
    unhandled.length = 0;
    process.on("unhandledRejection", onUnhandled);
  });
  afterEach(() => {
    process.off("unhandledRejection", onUnhandled);
  });
  /** What went unhandled, as `name: message` (readable in a failure). */
  const seen = () => unhandled.map((reason) => (reason instanceof Error ? `${reason.name}: ${reason.message}` : String(reason)));

  const shellJob = (name: string) =>
    ({ name, schedule: "0 0 1 1 *", executionType: "shell", command: "true", timeoutSeconds: 30, conversationId: "c" }) as const;
  const runShell = async () => ({ exitCode: 0, output: "" });

  it("a cron firing on a worker without a runner for its job, then close(): the execution fails, nothing rejects unhandled", async () => {
    const prefix = "unhandled-norunner";
    // The job is made where harness jobs run; the worker below runs shell jobs only.
    const creator = new BullMqCronScheduler({
      connection: connection(),
      prefix,
      runShell,
      continueConversation: async () => "ok",
    });
    closers.push(() => creator.close());
    const job = await creator.create({
      name: "turn",
      schedule: "0 0 1 1 *",
      executionType: "harness",
      prompt: "hello",
      timeoutSeconds: 30,
      conversationId: "c",
    });
    const worker = new BullMqCronScheduler({ connection: connection(), prefix, runShell });
    let closed = false;
    closers.push(async () => (closed ? undefined : worker.close()));
    await worker.startWorker({ concurrency: 1 });
    const queue = new Queue("cron", { connection: connection(), prefix });
    closers.push(() => queue.close());
    // One firing now: a slot in the past, as BullMQ's scheduler names its jobs.
    await queue.add("cron", { jobId: job.id }, { jobId: `repeat:${job.id}:1767225600000`, removeOnComplete: true });
    await expect
      .poll(async () => (await creator.get(job.id, 1))?.executions[0], { timeout: 30_000 })
      .toMatchObject({ status: "failed", error: "No runner for harness jobs on this worker." });
    await worker.close();
    closed = true;
    await sleep(SETTLE_MS);
    expect(seen()).toEqual([]);
  }, 60_000);

  it("list() while Redis is stopped rejects to its caller with redis_timeout; nothing rejects unhandled when Redis answers late", async () => {
    const prefix = "unhandled-list";
    const cron = new BullMqCronScheduler({ connection: connection(), prefix, runShell, operationTimeoutMs: 400 });
    closers.push(() => cron.close());
    await cron.create(shellJob("kept"));
    redis.server.pause();
    let outcome: unknown;
    try {
      outcome = await within(
        cron.list().then(
          () => "resolved",
          (error: RedisTimeoutError) => ({ code: error.code, operation: error.operation, mayHaveRun: error.mayHaveRun }),
        ),
        10_000,
      );
    } finally {
      redis.server.resume();
    }
    expect(outcome).toEqual({ code: "redis_timeout", operation: "BullMqCronScheduler.list", mayHaveRun: false });
    // Control: the same call answers once Redis runs again (and the late replies have landed).
    expect((await cron.list()).map((job) => job.name)).toEqual(["kept"]);
    await sleep(SETTLE_MS);
    expect(seen()).toEqual([]);
  }, 60_000);

  it("background passes while Redis refuses their commands: each fails (ACL LOG) and none rejects unhandled", async () => {
    const prefix = "unhandled-background";
    // A user the denial below leaves alone, to deny, read the ACL LOG and allow again.
    const setup = redis.client();
    await setup.call("ACL", "SETUSER", "h53admin", "on", ">h53", "~*", "&*", "+@all");
    const admin = redis.client({ username: "h53admin", password: "h53" });
    const allow = () => admin.call("ACL", "SETUSER", "default", "+@all");
    closers.push(allow);
    await admin.call("ACL", "LOG", "RESET");

    // The cron reconciler, every 100 ms.
    const cron = new BullMqCronScheduler({ connection: connection(), prefix, runShell });
    closers.push(() => cron.close());
    await cron.create(shellJob("kept"));
    await cron.startWorker({ concurrency: 1, reconcileIntervalMs: 100 });
    // The callback sweeper, every 300 ms (its lock duration).
    const callbacks = new BullMqCallbackManager({ connection: connection(), prefix, onFire: () => undefined });
    closers.push(() => callbacks.close());
    await callbacks.startWorker({ lockDurationMs: 300 });
    // A subagent running here: its lease and its running slot renewed every second (a third of the lease, which outlasts the denial).
    const client: Redis = redis.client();
    client.on("error", () => undefined);
    const local = new InProcessSubagentManager({
      runner: {
        runPrompt: ({ signal }) =>
          new Promise((_, reject) => signal.addEventListener("abort", () => reject(signal.reason), { once: true })),
      },
    });
    const subagents = new RedisSubagentManager({
      redis: client,
      local,
      prefix,
      maxRunning: 2,
      leaseMs: 3_000,
      pollIntervalMs: 50,
    });
    closers.push(async () => subagents.close());
    const run = createRegistry().createRun();
    const started = await subagents.start({ task: "run until cancelled", ownerId: "c", depth: 1, scope: run.scope() });
    closers.push(() => local.cancel(started.id));

    // Denied: the reconciler's read of the jobs, the sweeper's read of due callbacks, every script
    // (both renewals are scripts; BullMQ's own scripts fail too, reported on its workers' "error").
    await admin.call("ACL", "SETUSER", "default", "-hgetall", "-zrangebyscore", "-eval", "-evalsha");
    try {
      await sleep(1_500);
      const log = (await admin.call("ACL", "LOG", "128")) as unknown[][];
      const denied = new Set(log.map((entry) => String(entry[entry.indexOf("object") + 1])));
      // Every pass under test ran and failed while denied (not a test that could not fail).
      expect([...denied].filter((command) => ["hgetall", "zrangebyscore", "eval"].includes(command)).sort()).toEqual([
        "eval",
        "hgetall",
        "zrangebyscore",
      ]);
    } finally {
      await allow();
    }
    // Control: with the commands allowed again, the subagent is still ours and can be cancelled.
    expect((await subagents.get(started.id))?.status).toBe("running");
    expect((await subagents.cancel(started.id))?.status).toBe("cancelled");
    await sleep(SETTLE_MS);
    expect(seen()).toEqual([]);
  }, 60_000);
});
