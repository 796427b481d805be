/**
 * Fault injection on the Redis approval broker: the real `redis-server` is killed while a call
 * waits for approval, and started again empty. A waiting call must still end at its deadline
 * (denied, never hung, no unhandled rejection), a call made while Redis is down must get a
 * structured error, and the same broker must work again once Redis is back (approved from a
 * second client, the tool runs once).
 */
import { createRegistry, defineTool, type ToolCallResult } from "agent-tool-catalog";
import { RedisApprovalBroker } from "agent-tool-catalog/redis";
import type { Redis } from "ioredis";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { capability } from "../support/capabilities.js";
import { useRedisServer } from "../support/redis-server.js";
import { within } from "./support/hanging-redis.js";

const redisCapability = capability("redis");
/**
 * How long a client may take to connect (or reconnect after a restart): a wait for an event, not
 * a claim. vitest's default of 1 s, and 5 s after a restart, failed at load 20-35 (2 cores, 8 busy
 * loops beside) with the client still "reconnecting".
 */
const READY_MS = 30_000;

describe.skipIf(redisCapability.missing)(redisCapability.label("RedisApprovalBroker when Redis dies"), () => {
  const server = useRedisServer();
  /** A client that gives up on a command after one failed reconnect and retries connecting every 20 ms. */
  const client = (): Redis => {
    const made = server.client({ maxRetriesPerRequest: 1, retryStrategy: () => 20 });
    made.on("error", () => undefined);
    return made;
  };

  /** The id of the next request `broker` announces (`approval.requested`: its write has landed). */
  const announced = (broker: RedisApprovalBroker) =>
    new Promise<string>((resolve) => {
      const off = broker.events.on("approval.requested", (request) => {
        off();
        resolve(request.id);
      });
    });

  it("a waiting call ends at its deadline, a call while down fails cleanly, and the broker recovers", async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on("unhandledRejection", onUnhandled);
    try {
      const redis = client();
      const approver = client();
      let runs = 0;
      const act = defineTool({
        name: "act",
        description: "Does something that needs approval.",
        inputSchema: z.object({ n: z.number() }),
        mutating: true,
        handler: () => ++runs,
      });
      // The first broker subscribes while Redis is up; the second makes its first request while it is down.
      const early = new RedisApprovalBroker({ redis, prefix: "faults-a", pollIntervalMs: 50 });
      const late = new RedisApprovalBroker({ redis, prefix: "faults-b", pollIntervalMs: 50 });
      const runOf = (broker: RedisApprovalBroker, approvalTimeoutMs: number) =>
        createRegistry({ tools: [act], approvals: broker }).createRun({ permissions: { approval: "all" }, approvalTimeoutMs });
      // The waiting call's deadline must outlast the read of its request and Redis's kill, or the
      // call ends on a live Redis and the test proves nothing of a dead one: at 400 ms the request
      // was already overdue (denied, gone from pending()) when it was read at load 37 (2 cores,
      // 8 busy loops beside). The call made while Redis is down keeps 400 ms.
      const earlyRun = runOf(early, 5_000);
      const lateRun = runOf(late, 400);

      // The broker announces the request once its write landed: one pending() read right after,
      // not a poll whose first read came too early and whose 50 ms steps at high load outlasted the
      // deadline.
      const requested = announced(early);
      const waiting = earlyRun.call("act", { n: 1 });
      const requestId = await within(requested, 10_000);
      expect((await early.pending()).map((request) => request.id)).toEqual([requestId]);
      await server.server.kill();
      // Control: Redis died while the call waited.
      expect(await within(waiting, 0)).toBe("still waiting");

      // Deadline 5 s (+ at most the 1 s grace for an unreachable Redis): denied, not hung. The
      // bound tells an end from a hang (the broker's own deadline is 5 minutes): at load 20-40 on
      // 2 cores the timers and the failed reconnects come late.
      const first = await within(waiting, 20_000);
      expect(first).toMatchObject({ ok: false, error: { code: "approval_denied" } });

      // Redis down: a new request is a structured error, not a hang.
      const down = await within(lateRun.call("act", { n: 2 }), 8_000);
      expect(down).toMatchObject({ ok: false });
      expect((down as ToolCallResult).ok).toBe(false);

      await server.server.start();
      await expect.poll(() => redis.status === "ready" && approver.status === "ready", { timeout: READY_MS }).toBe(true);
      // Both brokers work again: approved from another client, the tool runs once per approval.
      // Runs on the same brokers with a deadline a person could meet: approved within 400 ms,
      // three Redis round trips and two clients, failed at load 19 (denied at its deadline),
      // which says nothing of the broker's recovery.
      for (const [broker, prefix, n] of [
        [late, "faults-b", 3],
        [early, "faults-a", 4],
      ] as const) {
        const run = runOf(broker, 30_000);
        const requested = announced(broker);
        const call = run.call("act", { n });
        const other = new RedisApprovalBroker({ redis: approver, prefix });
        const id = await within(requested, 10_000);
        expect((await other.pending()).map((request) => request.id)).toEqual([id]);
        expect(await other.approve(id)).toBe(true);
        expect(await within(call, 10_000)).toMatchObject({ ok: true });
      }
      expect(runs).toBe(2);
      await early.close();
      await late.close();
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(unhandled).toEqual([]);
    } finally {
      process.off("unhandledRejection", onUnhandled);
    }
  }, 60_000);

  it("an abort while the request is being stored still withdraws it (no abort is lost)", async () => {
    const redis = client();
    await expect.poll(() => redis.status, { timeout: READY_MS }).toBe("ready");
    const broker = new RedisApprovalBroker({ redis, prefix: "faults-c", timeoutMs: 60_000 });
    const base = { runId: "r", toolName: "deploy", input: {}, mutating: true, policy: "destructive" as const };
    // Aborted at every point of the store: before the first await, after each Redis round trip.
    for (const delay of [0, 1, 2, 3, 5]) {
      const controller = new AbortController();
      const waiting = broker.request({ ...base, callId: `c${delay}` }, { signal: controller.signal });
      if (delay === 0) controller.abort();
      else setTimeout(() => controller.abort(), delay);
      expect(await within(waiting, 2_500)).toMatchObject({ decision: "denied", resolvedBy: "abort" });
    }
    expect(await broker.pending()).toEqual([]);
    await broker.close();
  }, 60_000);

  it("a Redis restarted empty mid-wait denies the waiting call at once, saying why (not after its five-minute deadline)", async () => {
    const redis = client();
    await expect.poll(() => redis.status, { timeout: READY_MS }).toBe("ready");
    const broker = new RedisApprovalBroker({ redis, prefix: "faults-d", timeoutMs: 300_000, pollIntervalMs: 50 });
    const base = { runId: "r", toolName: "deploy", input: {}, mutating: true, policy: "destructive" as const };

    // Positive control: over a healthy Redis, a waiting call is not denied by the polls, and an
    // approval still reaches it.
    const healthy = broker.request({ ...base, callId: "healthy" });
    await expect.poll(async () => (await broker.pending()).length, { timeout: 10_000 }).toBe(1);
    expect(await within(healthy, 500)).toBe("still waiting");
    const [request] = await broker.pending();
    expect(await broker.approve(request?.id ?? "")).toBe(true);
    expect(await within(healthy, 2_000)).toMatchObject({ decision: "approved" });

    const waiting = broker.request({ ...base, callId: "lost" });
    await expect.poll(async () => (await broker.pending()).length, { timeout: 10_000 }).toBe(1);
    await server.server.kill();
    await server.server.start();
    await expect.poll(() => redis.status, { timeout: READY_MS }).toBe("ready");
    // The request is gone: nobody can list or approve it, so waiting for it helps no one.
    expect(await broker.pending()).toEqual([]);
    const ended = await within(waiting, 3_000);
    expect(ended).toMatchObject({ decision: "denied", resolvedBy: "abort" });
    expect((ended as { reason?: string }).reason).toMatch(/gone from Redis/);
    await broker.close();
  }, 60_000);

  it("a request whose hash is gone leaves the pending set once its deadline passes (no id kept for good)", async () => {
    const redis = client();
    await expect.poll(() => redis.status, { timeout: READY_MS }).toBe("ready");
    const broker = new RedisApprovalBroker({ redis, prefix: "faults-e", timeoutMs: 300, pollIntervalMs: 50 });
    const base = { runId: "r", toolName: "deploy", input: {}, mutating: true, policy: "destructive" as const };
    const pendingSet = "faults-e:approvals:pending";

    // Positive control: a request still stored is denied at its deadline and leaves the set.
    const kept = broker.request({ ...base, callId: "kept" });
    expect(await redis.zcard(pendingSet)).toBe(1);
    expect(await within(kept, 3_000)).toMatchObject({ decision: "denied", resolvedBy: "timeout" });
    await expect.poll(async () => redis.zcard(pendingSet), { timeout: 10_000 }).toBe(0);

    // The hash evicted (or lost to a restart from an older snapshot) while its id stays in the set.
    const lost = broker.request({ ...base, callId: "lost" });
    const [id] = await redis.zrange(pendingSet, 0, -1);
    await redis.del(`faults-e:approval:${id}`);
    expect(await within(lost, 3_000)).toMatchObject({ decision: "denied" });
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(await broker.pending()).toEqual([]);
    expect(await redis.zrange(pendingSet, 0, -1)).toEqual([]);
    await broker.close();
  }, 60_000);
});
