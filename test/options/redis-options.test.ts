/**
 * The Redis subpath's numeric options against hostile values, refused where they are given
 * (`invalid_option`; `invalid_approval_timeout` for approval timeouts, as the in-memory broker).
 * Before: `pollIntervalMs`, `leaseMs`, `lockDurationMs` or `reconcileIntervalMs` past 2^31 - 1 ms
 * (or `NaN`) made Node run the interval every millisecond; `RedisApprovalBroker({ timeoutMs:
 * 2 ** 31 })` denied every request at once; a `NaN` or `Infinity` `retainMs` became `PX NaN`, an
 * error from Redis at the first write; `defaultTtlMs: NaN` went to Redis as `PX NaN`. The
 * constructors take a lazily connecting client: a refusal needs no server. Positive controls with
 * a real redis-server: the documented values, the longest timer included, work.
 */
import { createRegistry } from "agent-tool-catalog";
import { InProcessSubagentManager } from "agent-tool-catalog/host";
import {
  BullMqCallbackManager,
  BullMqCronScheduler,
  RedisApprovalBroker,
  RedisRunStore,
  RedisSubagentManager,
  RedisWorkflowService,
} from "agent-tool-catalog/redis";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { capability } from "../support/capabilities.js";
import { type DocumentedRule, expectRuleHolds, TIMER } from "../support/hostile-options.js";
import { useRedisServer } from "../support/redis-server.js";

const redis = new Redis({ lazyConnect: true, port: 1 });
afterAll(() => redis.disconnect());
const RETAIN: DocumentedRule = { min: 1, integer: true };
const APPROVAL: DocumentedRule = { min: 1, max: 2 ** 31 - 1, integer: true };
const local = new InProcessSubagentManager({ runner: { runPrompt: async () => ({ output: "" }) } });

describe("Redis options: refused where given unless the documented rule accepts them", () => {
  it("RedisRunStore defaultTtlMs, operationTimeoutMs and callClaimTtlMs", async () => {
    await expectRuleHolds("defaultTtlMs", (defaultTtlMs) => new RedisRunStore({ redis, defaultTtlMs }), {
      min: 1,
      integer: true,
      infinite: true,
    });
    await expectRuleHolds("operationTimeoutMs", (operationTimeoutMs) => new RedisRunStore({ redis, operationTimeoutMs }), TIMER);
    await expectRuleHolds("callClaimTtlMs", (callClaimTtlMs) => new RedisRunStore({ redis, callClaimTtlMs }), {
      ...TIMER,
      min: 3,
    });
  });

  it("RedisApprovalBroker timeoutMs, pollIntervalMs, retainMs, maxStoredInputChars", async () => {
    await expectRuleHolds(
      "timeoutMs",
      (timeoutMs) => new RedisApprovalBroker({ redis, timeoutMs }),
      APPROVAL,
      undefined,
      "invalid_approval_timeout",
    );
    await expectRuleHolds("pollIntervalMs", (pollIntervalMs) => new RedisApprovalBroker({ redis, pollIntervalMs }), TIMER);
    await expectRuleHolds("retainMs", (retainMs) => new RedisApprovalBroker({ redis, retainMs }), RETAIN);
    await expectRuleHolds(
      "maxStoredInputChars",
      (maxStoredInputChars) => new RedisApprovalBroker({ redis, maxStoredInputChars }),
      { min: 0, integer: true, infinite: true },
    );
  });

  it("RedisSubagentManager and RedisWorkflowService leaseMs, retainMs, pollIntervalMs", async () => {
    for (const make of [
      (options: object) => new RedisSubagentManager({ redis, local, ...options }),
      (options: object) => new RedisWorkflowService({ redis, local: { onJournal: () => () => undefined } as never, ...options }),
    ]) {
      await expectRuleHolds("leaseMs", (leaseMs) => make({ leaseMs }), TIMER);
      await expectRuleHolds("retainMs", (retainMs) => make({ retainMs }), RETAIN);
      await expectRuleHolds("pollIntervalMs", (pollIntervalMs) => make({ pollIntervalMs }), TIMER);
    }
  });
});

const redisCapability = capability("redis");

describe.skipIf(redisCapability.missing)(
  redisCapability.label("BullMQ options and positive controls with a real redis-server"),
  () => {
    const server = useRedisServer();
    const { closers } = server;
    const connection = () => ({ host: "127.0.0.1", port: server.port });

    it("BullMqCallbackManager maxPendingPerConversation and retainMs; startWorker concurrency and lockDurationMs", async () => {
      const made = (options: object) => {
        const manager = new BullMqCallbackManager({ connection: connection(), prefix: "opts", onFire: () => {}, ...options });
        closers.push(() => manager.close());
        return manager;
      };
      await expectRuleHolds("maxPendingPerConversation", (maxPendingPerConversation) => made({ maxPendingPerConversation }), {
        min: 1,
        integer: true,
        infinite: true,
      });
      await expectRuleHolds("retainMs", (retainMs) => made({ retainMs }), RETAIN);
      const manager = made({});
      for (const [field, options] of [
        ["concurrency", { concurrency: 0 }],
        ["concurrency", { concurrency: 1.5 }],
        ["lockDurationMs", { lockDurationMs: 2 ** 31 }],
        ["lockDurationMs", { lockDurationMs: Number.NaN }],
      ] as const) {
        await expect(manager.startWorker(options)).rejects.toMatchObject({ code: "invalid_option", data: { field } });
      }
      // Positive control: the longest timer starts a worker.
      await expect(manager.startWorker({ concurrency: 1, lockDurationMs: 2 ** 31 - 1 })).resolves.toBeUndefined();
    });

    it("BullMqCronScheduler historyLimit and maxOutputChars; startWorker concurrency and reconcileIntervalMs", async () => {
      const made = (options: object) => {
        const scheduler = new BullMqCronScheduler({ connection: connection(), prefix: "opts", ...options });
        closers.push(() => scheduler.close());
        return scheduler;
      };
      await expectRuleHolds("historyLimit", (historyLimit) => made({ historyLimit }), { min: 1, integer: true });
      await expectRuleHolds("maxOutputChars", (maxOutputChars) => made({ maxOutputChars }), {
        min: 1,
        integer: true,
        infinite: true,
      });
      const scheduler = made({});
      for (const [field, options] of [
        ["concurrency", { concurrency: Number.POSITIVE_INFINITY }],
        ["reconcileIntervalMs", { reconcileIntervalMs: 2 ** 31 }],
        ["reconcileIntervalMs", { reconcileIntervalMs: 0 }],
      ] as const) {
        await expect(scheduler.startWorker(options)).rejects.toMatchObject({ code: "invalid_option", data: { field } });
      }
      await expect(scheduler.startWorker({ reconcileIntervalMs: 2 ** 31 - 1 })).resolves.toBeUndefined();
    });

    it("a run saved through a store with defaultTtlMs Infinity never expires; with 60000 it has a TTL", async () => {
      const client = server.client();
      for (const [defaultTtlMs, expired] of [
        [Number.POSITIVE_INFINITY, -1],
        [60_000, 60_000],
      ] as const) {
        const store = new RedisRunStore({ redis: client, prefix: `ttl${defaultTtlMs}`, defaultTtlMs });
        const run = createRegistry().createRun({ store });
        await run.save();
        const keys = await client.keys(`ttl${defaultTtlMs}*`);
        expect(keys.length).toBeGreaterThan(0);
        const ttl = await client.pttl(keys[0] as string);
        if (expired === -1) expect(ttl).toBe(-1);
        else expect(ttl).toBeGreaterThan(50_000);
      }
    });
  },
);
