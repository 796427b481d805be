/**
 * Hosts whose wall clocks disagree share one Redis. Deadlines (approval requests) and leases
 * (subagents, workflow runs) must be judged by one clock, Redis's, not by whichever process
 * happens to look: a fixture process is started with its `Date.now` shifted by a minute (a
 * preloaded module, test/redis/fixtures/skewed-clock.mjs) while this process's clock is right.
 */
import type { ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { InProcessSubagentManager } from "agent-tool-catalog/host";
import { BullMqCallbackManager, RedisApprovalBroker, RedisSubagentManager } from "agent-tool-catalog/redis";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { capability } from "../support/capabilities.js";
import { spawnNode } from "../support/child-entry.js";
import { type RedisServer, startRedisServer, useRedisServer } from "../support/redis-server.js";
import { clockShiftBeforeMinute } from "../support/shifted-clock.js";
import { stopProcess } from "../support/stop-process.js";
import { loadCronClient } from "./support/cron-client.js";
import { loadJobWorker } from "./support/job-workers.js";

const redisCapability = capability("redis");
// The cron test shifts its Redis's clock with a library it compiles.
const ccCapability = capability("cc");
/** How long at least before a minute boundary the cron test's clock is put once its two processes are loaded (5 s of it must be left at creation). */
const CRON_LEAD_MS = 10_000;
const root = fileURLToPath(new URL("../..", import.meta.url));
const skewedClock = fileURLToPath(new URL("./fixtures/skewed-clock.mjs", import.meta.url));
const MINUTE = 60_000;

interface Fixture {
  readonly child: ChildProcess;
  next(): Promise<Record<string, unknown>>;
  exited(): Promise<void>;
}

/** Starts a fixture script with its wall clock `skewMs` off (positive: ahead). */
function startSkewed(fixture: string, skewMs: number, args: readonly string[]): Fixture {
  const script = fileURLToPath(new URL(`./fixtures/${fixture}`, import.meta.url));
  const child = spawnNode(script, args, {
    imports: [skewedClock],
    cwd: root,
    env: { ...process.env, CLOCK_SKEW_MS: String(skewMs) },
    stdio: ["pipe", "pipe", "inherit"],
  });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream })[Symbol.asyncIterator]();
  return {
    child,
    next: async () => {
      const line = await lines.next();
      if (line.done === true) throw new Error(`${fixture} ended without output`);
      return JSON.parse(line.value) as Record<string, unknown>;
    },
    exited: () =>
      child.exitCode !== null || child.signalCode !== null
        ? Promise.resolve()
        : new Promise<void>((resolve) => child.once("exit", () => resolve())),
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(redisCapability.missing)(redisCapability.label("Deadlines and leases across hosts whose clocks disagree"), () => {
  const server = useRedisServer();
  let redis: Redis;
  let prefix = 0;
  const nextPrefix = () => `skew${++prefix}`;
  const started: Fixture[] = [];

  beforeAll(() => {
    redis = server.client();
  });
  afterAll(async () => {
    // Waited for: until they have exited they still talk to the Redis server stopped after this.
    await Promise.all(started.map((fixture) => stopProcess(fixture.child)));
  });

  // The cron test has its own Redis, whose clock (and the creating host's; the worker's is a
  // minute ahead of both) is shifted to CRON_LEAD_MS before a minute boundary once its processes
  // are loaded: it waits seconds for its minute, not up to one (5-field cron has no seconds; the
  // machine's clock made this file take 5-65 s by where in the minute it started, 56 s in CI).
  // Everything else runs beside it, on its own prefixes and fixture processes. Beside it, the two
  // 5 s callbacks side by side, then the others one test (one child) at a time: five children
  // starting at once at load 20 made the 20 s approvals miss their 30 s, so at most three start
  // together here (the cron test's two, then the callbacks').
  it.skipIf(ccCapability.missing).concurrent(
    ccCapability.label("a cron firing taken by a worker a minute ahead runs at its minute by Redis's clock, not a minute early"),
    async ({ expect }) => {
      const ns = nextPrefix();
      const loadingFrom = performance.now();
      const [loadedWorker, loadedClient] = await Promise.all([loadJobWorker(ns, "ahead"), loadCronClient(ns)]);
      // A machine that took long to load them is slow for what follows too: 5 s more than half that.
      const lead = Math.min(50_000, Math.max(CRON_LEAD_MS, 5_000 + (performance.now() - loadingFrom) / 2));
      let shifted: RedisServer | undefined;
      try {
        const shift = clockShiftBeforeMinute(lead);
        // Redis's clock, and the creating host's: this process's plus the shift.
        const clockNow = () => Date.now() + shift;
        shifted = await startRedisServer({ clockShiftMs: shift });
        const worker = await loadedWorker.connect(shifted.port, shift + MINUTE);
        // This host only creates the job (runShell says it may run shell commands); the skewed
        // worker runs it.
        const scheduler = await loadedClient.connect(shifted.port, shift);
        // Not within 5 s of a minute: the early firing (at once) must be told from the right one.
        while (clockNow() % MINUTE > MINUTE - 5_000) await sleep(500);
        const createdAt = clockNow();
        await scheduler.create({
          name: "every-minute",
          schedule: "* * * * *",
          executionType: "shell",
          command: "echo tick",
          timeoutSeconds: 5,
          conversationId: "c",
        });
        const slot = Math.ceil(createdAt / MINUTE) * MINUTE;
        // The old code ran it at once, up to 55 s before its minute.
        while (worker.firings.length === 0 && clockNow() < slot + 30_000) await sleep(20);
        const firedAt = clockNow();
        expect(worker.firings).toMatchObject([{ kind: "cron", worker: "ahead" }]);
        expect(firedAt).toBeGreaterThan(slot - 1_000);
        // Positive control: it runs at its minute.
        expect(firedAt).toBeLessThan(slot + 10_000);
        await scheduler.close();
      } finally {
        // Waited for: until they have exited they still talk to the server stopped after them.
        await Promise.all([loadedWorker.kill(), loadedClient.kill()]);
        await shifted?.stop();
      }
    },
    120_000,
  );

  describe.concurrent("beside the cron test", () => {
    it("a 5 s callback scheduled on a host a minute ahead is due and fires here 5 s later, not 65 s", async ({ expect }) => {
      const ns = nextPrefix();
      const fired: number[] = [];
      const worker = new BullMqCallbackManager({
        connection: { host: "127.0.0.1", port: Number(new URL(server.url).port) },
        prefix: ns,
        onFire: () => {
          fired.push(Date.now());
        },
      });
      try {
        await worker.startWorker();
        const host = startSkewed("callback-once.mjs", MINUTE, [server.url, ns, "5"]);
        started.push(host);
        const { scheduled } = (await host.next()) as { scheduled: { dueAt: number } };
        const [seconds, micros] = await redis.time();
        const redisMs = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
        // Due by Redis's clock (what every worker judges by), not by the scheduling host's.
        expect(Math.abs(scheduled.dueAt - (redisMs + 5_000))).toBeLessThan(5_000);
        const armedAt = Date.now();
        while (fired.length === 0 && Date.now() - armedAt < 25_000) await sleep(100);
        expect(fired).toHaveLength(1);
        expect((fired[0] as number) - armedAt).toBeLessThan(15_000);
        await host.exited();
      } finally {
        await worker.close();
      }
    }, 60_000);

    it("a 5 s callback fired by a worker a minute ahead fires 5 s later by Redis's clock, not at once", async ({ expect }) => {
      const ns = nextPrefix();
      const worker = startSkewed("callback-fire-worker.mjs", MINUTE, [server.url, ns]);
      started.push(worker);
      expect(await worker.next()).toEqual({ ready: true });
      const scheduler = new BullMqCallbackManager({
        connection: { host: "127.0.0.1", port: Number(new URL(server.url).port) },
        prefix: ns,
      });
      try {
        const scheduledAt = performance.now();
        const scheduled = await scheduler.schedule({ conversationId: "c", delaySeconds: 5, message: "wake up" });
        // BullMQ's worker takes a delayed job when its own clock says it is due: this one fired the
        // callback at once (after 0.1-0.3 s) on the old code.
        expect(await worker.next()).toEqual({ fired: scheduled.id });
        const firedAfter = performance.now() - scheduledAt;
        expect(firedAfter).toBeGreaterThan(4_500);
        // Positive control: it does fire, near its time.
        expect(firedAfter).toBeLessThan(15_000);
        // The record says fired once onFire returned, a moment after the worker printed from inside it.
        await expect.poll(async () => (await scheduler.get(scheduled.id))?.status, { timeout: 5_000 }).toBe("fired");
      } finally {
        await scheduler.close();
        worker.child.kill("SIGKILL");
      }
    }, 60_000);

    describe.sequential("then one fixture process at a time", () => {
      it("a request made on a host a minute behind is listed and approved within its 20 s, not denied on sight", async () => {
        const ns = nextPrefix();
        const waiter = startSkewed("approval-waiter.mjs", -MINUTE, [server.url, ns, "20000", "run-behind"]);
        started.push(waiter);
        const { requested } = await waiter.next();
        const broker = new RedisApprovalBroker({ redis, prefix: ns });
        const pending = await broker.pending();
        expect(pending.map((request) => request.id)).toEqual([requested]);
        // Shown in one clock (Redis's): the deadline is about 20 s from now for this host too.
        const [shown] = pending;
        expect(Math.abs((shown?.expiresAt ?? 0) - (Date.now() + 20_000))).toBeLessThan(10_000);
        expect(await broker.approve(requested as string)).toBe(true);
        expect(await waiter.next()).toMatchObject({ result: { ok: true }, effects: 1 });
        await waiter.exited();
        await broker.close();
      }, 30_000);

      it("a host a minute ahead that reads a request (resolution, pending) does not deny it within its deadline", async () => {
        const ns = nextPrefix();
        const waiter = startSkewed("approval-waiter.mjs", 0, [server.url, ns, "20000", "run-read-ahead"]);
        started.push(waiter);
        // Started beside the waiter (its start-up is not added to the waiter's); told the id once made.
        const reader = startSkewed("approval-reader.mjs", MINUTE, [server.url, ns]);
        started.push(reader);
        const { requested } = await waiter.next();
        reader.child.stdin?.end(`${requested as string}\n`);
        expect(await reader.next()).toEqual({ resolution: null, pending: [requested] });
        await reader.exited();
        // Still pending for a person on a host whose clock is right: approved, and the tool runs once.
        const broker = new RedisApprovalBroker({ redis, prefix: ns });
        expect(await broker.approve(requested as string)).toBe(true);
        expect(await waiter.next()).toMatchObject({ result: { ok: true }, effects: 1 });
        await waiter.exited();
        await broker.close();
      }, 30_000);

      it("a request made on a host a minute ahead is denied at its real deadline once that host died, never approved late", async () => {
        const ns = nextPrefix();
        const waiter = startSkewed("approval-waiter.mjs", MINUTE, [server.url, ns, "1500", "run-ahead"]);
        started.push(waiter);
        const { requested } = await waiter.next();
        waiter.child.kill("SIGKILL");
        await waiter.exited();
        const broker = new RedisApprovalBroker({ redis, prefix: ns });
        // Positive control: before the deadline it is pending.
        expect((await broker.pending()).map((request) => request.id)).toEqual([requested]);
        await sleep(1_700);
        expect(await broker.approve(requested as string)).toBe(false);
        expect(await broker.pending()).toEqual([]);
        expect(await broker.resolution(requested as string)).toMatchObject({ decision: "denied", resolvedBy: "timeout" });
        await broker.close();
      }, 30_000);

      describe("subagent leases", () => {
        let manager: RedisSubagentManager;
        let ns: string;
        beforeAll(() => {
          ns = nextPrefix();
          const local = new InProcessSubagentManager({
            runner: { runPrompt: () => Promise.reject(new Error("this process runs no subagent")) },
          });
          manager = new RedisSubagentManager({ redis, local, prefix: ns, leaseMs: 2_000, pollIntervalMs: 100 });
        });
        afterAll(() => manager?.close());

        it("a subagent run on a host a minute behind is running, not failed, when read here, and completes", async () => {
          const host = startSkewed("subagent-host.mjs", -MINUTE, [server.url, ns, "1500", "2000"]);
          started.push(host);
          const { started: id } = await host.next();
          expect(await manager.get(id as string)).toMatchObject({ status: "running" });
          expect(await manager.wait(id as string, { timeoutMs: 10_000 })).toMatchObject({ status: "completed" });
          await host.exited();
        }, 30_000);

        it("a subagent whose host a minute ahead was killed is failed once its 2 s lease runs out, not a minute later", async () => {
          const host = startSkewed("subagent-host.mjs", MINUTE, [server.url, ns, "60000", "2000"]);
          started.push(host);
          const { started: id } = await host.next();
          host.child.kill("SIGKILL");
          await host.exited();
          // Positive control: right after the kill the lease still holds.
          expect((await manager.get(id as string))?.status).toBe("running");
          expect(await manager.wait(id as string, { timeoutMs: 8_000 })).toMatchObject({ status: "failed" });
        }, 30_000);
      });
    });
  });
});
