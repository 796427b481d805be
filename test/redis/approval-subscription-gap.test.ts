/**
 * A call waiting for approval on the Redis broker, whose request is stored (listed, approvable)
 * while its broker's subscriber connection is still being set up: a TCP proxy on 127.0.0.1 holds
 * that second connection back past the call's deadline, so the window is hit every time. Whatever
 * wins (a person's approval or the deadline), the approver, the call and Redis's record agree:
 * an `approve()` that answered `true` made the call run. The old code denied the call at its
 * deadline and only then sent a denial that Redis refused (already approved): the approver was
 * told `true`, Redis recorded "approved", and the tool never ran. Positive control: the same
 * through the proxy without the delay.
 */

import type { AddressInfo } from "node:net";
import { connect, createServer, type Server, type Socket } from "node:net";
import { createRegistry, defineTool } from "agent-tool-catalog";
import { RedisApprovalBroker } from "agent-tool-catalog/redis";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { capability } from "../support/capabilities.js";
import { useRedisServer } from "../support/redis-server.js";

const redisCapability = capability("redis");
const ASKED = { runId: "r", callId: "c", toolName: "act", input: {}, mutating: true, policy: "all" as const };

/** A TCP proxy to `port` that connects its `slowConnection`-th client (1-based) only after `delayMs`. */
interface SlowProxy {
  readonly url: string;
  /** Delays (ms) applied to the connections so far, in order. */
  readonly delays: number[];
  /** Stops passing what Redis sends to the `connection`-th client (1-based) on to it. */
  hold(connection: number): void;
  close(): Promise<void>;
}

async function startSlowProxy(port: number, slowConnection: number, delayMs: number): Promise<SlowProxy> {
  const sockets = new Set<Socket>();
  const delays: number[] = [];
  const upstreams: Socket[] = [];
  // A delayed connection's timer is cleared at close: one still pending (a 6 s delay outliving its
  // call) would be left to the next file in a shared worker.
  const timers = new Set<NodeJS.Timeout>();
  const server: Server = createServer((client) => {
    sockets.add(client);
    client.on("close", () => sockets.delete(client));
    client.on("error", () => undefined);
    // Held, not read: what the client writes waits in the socket until the upstream is open.
    client.pause();
    const delay = delays.length + 1 === slowConnection ? delayMs : 0;
    const index = delays.length;
    delays.push(delay);
    const timer = setTimeout(() => {
      timers.delete(timer);
      if (client.destroyed) return;
      const upstream = connect(port, "127.0.0.1");
      upstreams[index] = upstream;
      sockets.add(upstream);
      upstream.on("close", () => {
        sockets.delete(upstream);
        client.destroy();
      });
      upstream.on("error", () => client.destroy());
      client.on("close", () => upstream.destroy());
      client.pipe(upstream);
      upstream.pipe(client);
    }, delay);
    timers.add(timer);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `redis://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    delays,
    hold: (connection) => {
      const upstream = upstreams[connection - 1];
      if (upstream === undefined) throw new Error(`connection ${connection} is not open`);
      upstream.unpipe();
      upstream.pause();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of timers) clearTimeout(timer);
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

describe.skipIf(redisCapability.missing)(
  redisCapability.label("RedisApprovalBroker: a deadline passing while the waiter subscribes"),
  () => {
    const server = useRedisServer();
    const clients: Redis[] = [];
    const proxies: SlowProxy[] = [];
    let round = 0;
    afterAll(async () => {
      for (const client of clients) client.disconnect();
      for (const proxy of proxies) await proxy.close();
    });

    /**
     * One call through a waiting broker whose connections go through the proxy (its first
     * connection at once, its subscriber after `subscriberDelayMs`), approved from another
     * connection as soon as the request is listed.
     */
    async function approveWhileSubscribing(subscriberDelayMs: number, timeoutMs: number) {
      const proxy = await startSlowProxy(server.port, 2, subscriberDelayMs);
      proxies.push(proxy);
      const waitingRedis = new Redis(proxy.url);
      const approverRedis = new Redis(server.url);
      clients.push(waitingRedis, approverRedis);
      await waitingRedis.ping();
      const prefix = `gap${++round}`;
      const waiting = new RedisApprovalBroker({ redis: waitingRedis, prefix, timeoutMs });
      const approver = new RedisApprovalBroker({ redis: approverRedis, prefix });
      let ran = 0;
      const tool = defineTool({
        name: "act",
        description: "Acts once per approved call.",
        mutating: true,
        inputSchema: { type: "object" },
        handler: () => ++ran,
      });
      const run = createRegistry({ tools: [tool], approvals: waiting }).createRun({ permissions: { approval: "all" } });
      const started = Date.now();
      const call = run.call("act", {});
      let listed: string | undefined;
      while (listed === undefined && Date.now() - started < timeoutMs * 4) {
        listed = (await approver.pending())[0]?.id;
        if (listed === undefined) await new Promise((resolve) => setTimeout(resolve, 5));
      }
      if (listed === undefined) throw new Error("the request was never listed");
      const approvedAfterMs = Date.now() - started;
      const answer = await approver.approve(listed);
      const result = await call;
      const calledForMs = Date.now() - started;
      const resolution = await approver.resolution(listed);
      const stillListed = await approver.pending();
      await run.close();
      await Promise.all([waiting.close(), approver.close()]);
      return { answer, result, ran, resolution, stillListed, approvedAfterMs, calledForMs, delays: proxy.delays };
    }

    it("an approval that answered true runs the call, even when the deadline passed while subscribing", async () => {
      // Wide enough for a loaded machine to list and approve before the deadline: 2 s (and a 6 s
      // hold) was not at load 35 (2 cores, 8 busy loops beside: approved after 4.4 s). The order
      // is the claim (approved, then the deadline, then the subscription), not the durations.
      const timeoutMs = 8_000;
      const holdMs = 24_000;
      const outcome = await approveWhileSubscribing(holdMs, timeoutMs);
      // The window was hit: the subscriber connection was held back past the deadline, and the
      // request was approved while it was being held (before the deadline).
      expect(outcome.delays.slice(0, 2)).toEqual([0, holdMs]);
      expect(outcome.approvedAfterMs).toBeLessThan(timeoutMs);
      // The call did not wait for the subscription to end: the deadline path settles it.
      expect(outcome.calledForMs).toBeLessThan(holdMs);
      // Approver, call and record agree. On the old code: answer true, record "approved", call denied.
      expect(outcome.answer).toBe(true);
      expect(outcome.resolution).toMatchObject({ decision: "approved", resolvedBy: "host" });
      expect(outcome.result).toMatchObject({ ok: true });
      expect(outcome.ran).toBe(1);
      expect(outcome.stillListed).toEqual([]);
    }, 60_000);

    it("positive control: without the delay, an approval answers true and the call runs", async () => {
      const outcome = await approveWhileSubscribing(0, 5_000);
      expect(outcome.delays.slice(0, 2)).toEqual([0, 0]);
      expect(outcome.answer).toBe(true);
      expect(outcome.resolution).toMatchObject({ decision: "approved", resolvedBy: "host" });
      expect(outcome.result).toMatchObject({ ok: true });
      expect(outcome.ran).toBe(1);
    }, 30_000);

    it("without an approval the deadline wins while subscribing: denied everywhere, a late approval is refused", async () => {
      const proxy = await startSlowProxy(server.port, 2, 3_000);
      proxies.push(proxy);
      const waitingRedis = new Redis(proxy.url);
      const approverRedis = new Redis(server.url);
      clients.push(waitingRedis, approverRedis);
      const prefix = `gap${++round}`;
      const waiting = new RedisApprovalBroker({ redis: waitingRedis, prefix, timeoutMs: 500 });
      const approver = new RedisApprovalBroker({ redis: approverRedis, prefix });
      const started = Date.now();
      const resolution = await waiting.request(ASKED);
      expect(Date.now() - started).toBeLessThan(3_000);
      expect(resolution).toMatchObject({ decision: "denied", resolvedBy: "timeout" });
      // Recorded as denied at once (not after the subscription), and no longer approvable.
      expect(await approver.resolution(resolution.id)).toMatchObject({ decision: "denied", resolvedBy: "timeout" });
      expect(await approver.pending()).toEqual([]);
      expect(await approver.approve(resolution.id)).toBe(false);
      await Promise.all([waiting.close(), approver.close()]);
    }, 30_000);

    it("close() hands an approval that won before it to its call instead of denying it", async () => {
      const proxy = await startSlowProxy(server.port, 0, 0);
      proxies.push(proxy);
      const waitingRedis = new Redis(proxy.url);
      const approverRedis = new Redis(server.url);
      clients.push(waitingRedis, approverRedis);
      const prefix = `gap${++round}`;
      // No poll within the test: the waiter hears of a decision by its subscriber alone.
      const waiting = new RedisApprovalBroker({ redis: waitingRedis, prefix, timeoutMs: 20_000, pollIntervalMs: 600_000 });
      const approver = new RedisApprovalBroker({ redis: approverRedis, prefix });
      const requested = new Promise<string>((resolve) =>
        waiting.events.on("approval.requested", (request) => resolve(request.id)),
      );
      const call = waiting.request(ASKED);
      const id = await requested;
      expect(proxy.delays).toEqual([0, 0]);
      // The subscriber (second connection) no longer hears Redis: the approval's message is held.
      proxy.hold(2);
      expect(await approver.approve(id)).toBe(true);
      await waiting.close();
      // Old code: denied by "abort" while Redis records the approval that answered true.
      expect(await call).toMatchObject({ id, decision: "approved", resolvedBy: "host" });
      expect(await approver.resolution(id)).toMatchObject({ decision: "approved", resolvedBy: "host" });
      await approver.close();
    }, 30_000);

    it("positive control: close() still denies a call nobody decided, in Redis too", async () => {
      const redis = new Redis(server.url);
      clients.push(redis);
      const prefix = `gap${++round}`;
      const waiting = new RedisApprovalBroker({ redis, prefix, timeoutMs: 20_000 });
      const requested = new Promise<string>((resolve) =>
        waiting.events.on("approval.requested", (request) => resolve(request.id)),
      );
      const call = waiting.request(ASKED);
      const id = await requested;
      await waiting.close();
      expect(await call).toMatchObject({ id, decision: "denied", resolvedBy: "abort" });
      const reader = new RedisApprovalBroker({ redis, prefix });
      expect(await reader.resolution(id)).toMatchObject({ decision: "denied", resolvedBy: "abort" });
      expect(await reader.approve(id)).toBe(false);
    }, 30_000);
  },
);
