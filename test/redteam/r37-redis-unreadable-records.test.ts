/**
 * Red team round 37, the class of r37-redis-approval-unreadable-request in the other Redis
 * listings: one record another program (or version) wrote, unreadable (cut JSON, `null`, a
 * number, an object without its id), among the records a listing or a repair pass reads.
 *
 * - `BullMqCallbackManager.list(conversation)` parsed every record of the conversation and threw
 *   on the first unreadable one: the conversation's real callbacks could not be listed (nor
 *   cancelled by id from the listing); the repair sweep of every worker threw the same way.
 * - `BullMqCronScheduler.list()` parsed every stored job in its reconcile pass: one unreadable job
 *   failed every listing and every worker's reconcile.
 *
 * Each now leaves the unreadable record out and lists the rest. Control: the real ones are
 * listed, as they are without the planted records.
 */
import { BullMqCallbackManager } from "agent-tool-catalog/redis";
import type { Redis } from "ioredis";
import { beforeAll, describe, expect, it } from "vitest";
import { schedulerWithOneJob } from "../redis/support/one-job-scheduler.js";
import { capability } from "../support/capabilities.js";
import { useRedisServer } from "../support/redis-server.js";

const UNREADABLE = ['{"id":"cut', "null", "42", "[]", '{"status":"pending"}'];

const redisCapability = capability("redis");
describe.skipIf(redisCapability.missing)(redisCapability.label("Redis listings beside unreadable records"), () => {
  const server = useRedisServer();
  let redis: Redis;
  beforeAll(() => {
    redis = server.client();
  });

  it("BullMqCallbackManager.list lists the conversation's real callback", async () => {
    const prefix = "r37cb";
    const manager = new BullMqCallbackManager({ connection: server.connection(), prefix });
    try {
      const real = await manager.schedule({ conversationId: "conv", delaySeconds: 600, message: "wake up" });
      expect((await manager.list("conv")).map((callback) => callback.id)).toEqual([real.id]);
      for (const [index, json] of UNREADABLE.entries()) {
        const id = `planted-${index}`;
        await redis.set(`${prefix}:callbacks:record:${id}`, json);
        await redis.sadd(`${prefix}:callbacks:pending:conv`, id);
      }
      expect((await manager.list("conv")).map((callback) => callback.id)).toEqual([real.id]);
      // Control: the listed one is the real one, and can be cancelled.
      expect((await manager.cancel("conv", real.id)).status).toBe("cancelled");
    } finally {
      await manager.close();
    }
  });

  it("BullMqCronScheduler.list lists the real jobs", async () => {
    const prefix = "r37cron";
    const { scheduler, job } = await schedulerWithOneJob(server.connection(), prefix);
    try {
      expect((await scheduler.list()).map((listed) => listed.id)).toEqual([job.id]);
      for (const [index, json] of UNREADABLE.entries()) await redis.hset(`${prefix}:cron:jobs`, `planted-${index}`, json);
      expect((await scheduler.list()).map((listed) => listed.id)).toEqual([job.id]);
    } finally {
      await scheduler.close();
    }
  });
});
