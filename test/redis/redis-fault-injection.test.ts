/**
 * Fault injection on the Redis-backed parts with a real `redis-server` (red team round 6): the
 * server is stopped with SIGSTOP (connections stay open, nothing answers: a hung server), filled
 * to its `maxmemory`, and restarted empty. Clients use ioredis's defaults, as the README shows
 * (no command timeout). Every operation must end in a structured result or error within its own
 * bound, never hang, never raise an unhandled rejection, and never claim a state Redis does not
 * hold. Each case has a control on a healthy server.
 */
import { createRegistry, defineTool, openRun } from "agent-tool-catalog";
import { InProcessSubagentManager } from "agent-tool-catalog/host";
import { RedisApprovalBroker, RedisRunStore, RedisSubagentManager } from "agent-tool-catalog/redis";
import { describe, it } from "vitest";
import { z } from "zod";
import { capability } from "../support/capabilities.js";
import { echoTool as echo, useHangingRedis, within } from "./support/hanging-redis.js";

const redisCapability = capability("redis");

/** A mutating tool (so approval applies) that counts how often it really ran. */
function countedTool() {
  let runs = 0;
  const tool = defineTool({
    name: "counted",
    description: "Counts its runs.",
    inputSchema: z.object({ n: z.number() }),
    mutating: true,
    handler: () => ++runs,
  });
  return { tool, runs: () => runs };
}

describe.skipIf(redisCapability.missing)(redisCapability.label("Redis-backed parts under injected faults"), () => {
  // The two tests that wait out the run's bound on a save (10 s, and 1 s set by storeSaveWaitMs)
  // run beside each other and beside the rest, each on a server of its own (their pause is their
  // own): one after another, they were 20 of this file's 27 s. Each suite checks for unhandled rejections after its tests; one
  // raised by any test fails the ones running then.
  describe.concurrent("a run's call while its store hangs", () => {
    const hanging = useHangingRedis(50);
    const client = () => hanging.client();
    it("run.call returns when the run store's Redis hangs (state_save_failed), and the save lands once it answers", async ({
      expect,
    }) => {
      const redis = client();
      const store = new RedisRunStore({ redis, prefix: "hang-run" });
      const run = await openRun(createRegistry({ tools: [echo] }), { store, runId: "r" });
      // Control: a healthy server stores the call's state before the result comes back.
      expect(await run.call("echo", { n: 1 })).toMatchObject({ ok: true, output: 1 });
      expect((await store.load("r"))?.revision).toBe(1);
      expect(run.diagnostics()).toEqual([]);

      hanging.server.pause();
      const started = Date.now();
      const result = await within(run.call("echo", { n: 2 }), 20_000);
      // The result, after the run's bound on the save (10 s by default, as the README says), with
      // the save reported as not confirmed.
      expect(result).toMatchObject({ ok: true, output: 2 });
      expect(Date.now() - started).toBeGreaterThanOrEqual(9_900);
      expect(Date.now() - started).toBeLessThan(15_000);
      expect(run.diagnostics().map((diagnostic) => [diagnostic.kind, diagnostic.message])).toEqual([
        ["state_save_failed", expect.stringContaining("did not confirm the save")],
      ]);

      // A cancelled call waits for a hung store at most a second more.
      const controller = new AbortController();
      controller.abort();
      const cancelledAt = Date.now();
      expect(await within(run.call("echo", { n: 3 }, { signal: controller.signal }), 5_000)).toMatchObject({ ok: false });
      expect(Date.now() - cancelledAt).toBeLessThan(3_000);

      hanging.server.resume();
      // The queued saves run in order once Redis answers: revision 1 -> 2 -> 3, nothing overwritten.
      await expect.poll(async () => (await store.load("r"))?.revision, { timeout: 5_000 }).toBe(3);
      expect(await run.save()).toBe(4);
    }, 40_000);
  });

  describe.concurrent("a host's save while the run's store hangs", () => {
    const hanging = useHangingRedis(50);
    const client = () => hanging.client();
    it("run.save() from host code returns when the run store's Redis hangs (state_save_failed), and the save lands once it answers", async ({
      expect,
    }) => {
      const store = new RedisRunStore({ redis: client(), prefix: "hang-save" });
      // The bound set by the option (the call test above waits out the 10 s default).
      const run = await openRun(createRegistry({ tools: [echo] }), { store, runId: "r", storeSaveWaitMs: 1_000 });
      // Control: a healthy server answers with the new revision.
      expect(await within(run.save(), 5_000)).toBe(1);

      hanging.server.pause();
      const started = Date.now();
      expect(await within(run.save(), 20_000)).toBeUndefined();
      expect(Date.now() - started).toBeGreaterThanOrEqual(990);
      expect(Date.now() - started).toBeLessThan(9_000);
      expect(run.diagnostics().map((diagnostic) => [diagnostic.kind, diagnostic.message])).toEqual([
        ["state_save_failed", expect.stringContaining("did not confirm the save")],
      ]);

      hanging.server.resume();
      await expect.poll(async () => (await store.load("r"))?.revision, { timeout: 5_000 }).toBe(2);
      expect(await run.save()).toBe(3);
    }, 40_000);
  });

  describe.concurrent("the other faults", () => {
    describe.sequential("one at a time, on one server", () => {
      const hanging = useHangingRedis(50);
      const client = () => hanging.client();
      it("an approval request made while Redis hangs is denied at its deadline or abort, and never approvable later", async ({
        expect,
      }) => {
        const redis = client();
        const other = new RedisApprovalBroker({ redis: client(), prefix: "hang-apr" });
        const counted = countedTool();
        const broker = new RedisApprovalBroker({ redis, prefix: "hang-apr", timeoutMs: 600, pollIntervalMs: 50 });
        // No run-level approvalTimeoutMs: the broker's own deadline must hold.
        const run = createRegistry({ tools: [counted.tool], approvals: broker }).createRun({ permissions: { approval: "all" } });
        // The control's request, on the same client, has a deadline a loaded machine cannot miss: with
        // the 600 ms one (meant for the hang below) it expired at load > 8 before the other client had
        // listed and approved it.
        const healthy = new RedisApprovalBroker({ redis, prefix: "hang-apr", timeoutMs: 30_000, pollIntervalMs: 50 });
        const healthyRun = createRegistry({ tools: [counted.tool], approvals: healthy }).createRun({
          permissions: { approval: "all" },
        });

        // Control: healthy, approved from another client, runs once.
        const approved = healthyRun.call("counted", { n: 0 });
        await expect.poll(async () => (await other.pending()).length, { timeout: 10_000 }).toBe(1);
        expect(await other.approve((await other.pending())[0]?.id ?? "")).toBe(true);
        expect(await within(approved, 3_000)).toMatchObject({ ok: true });

        hanging.server.pause();
        const started = Date.now();
        const timedOut = await within(run.call("counted", { n: 1 }), 5_000);
        expect(timedOut).toMatchObject({ ok: false, error: { code: "approval_denied" } });
        expect(Date.now() - started).toBeLessThan(3_000);
        const controller = new AbortController();
        const aborted = run.call("counted", { n: 2 }, { signal: controller.signal });
        setTimeout(() => controller.abort(), 100);
        expect(await within(aborted, 3_000)).toMatchObject({ ok: false, error: { code: "aborted" } });

        hanging.server.resume();
        // Both requests reached Redis once it answered: neither is left pending for a person to approve.
        await expect.poll(async () => (await other.pending()).length, { timeout: 5_000 }).toBe(0);
        expect(counted.runs()).toBe(1);
        await broker.close();
        await healthy.close();
        await other.close();
      }, 30_000);

      it("a slow reply cannot turn a fresh approval into 'already used' (a poll that saw it pending reads it after)", async ({
        expect,
      }) => {
        // Slow responses on the waiting side: every HMGET reply arrives 150 ms late (the real client,
        // delayed). A poll that ran CONSUME while the request was pending then reads it approved.
        const fast = client();
        const slow = new Proxy(fast, {
          get(target, key) {
            const value = Reflect.get(target, key, target);
            if (key === "hmget") {
              return async (...args: unknown[]) => {
                await new Promise((resolve) => setTimeout(resolve, 150));
                return (value as (...a: unknown[]) => unknown).apply(target, args);
              };
            }
            return typeof value === "function" ? value.bind(target) : value;
          },
        });
        const approver = new RedisApprovalBroker({ redis: client(), prefix: "slow-apr" });
        const broker = new RedisApprovalBroker({ redis: slow, prefix: "slow-apr", pollIntervalMs: 20 });
        const counted = countedTool();
        const run = createRegistry({ tools: [counted.tool], approvals: broker }).createRun({ permissions: { approval: "all" } });
        for (let n = 0; n < 5; n++) {
          const waiting = run.call("counted", { n });
          await expect.poll(async () => (await approver.pending()).length, { timeout: 10_000 }).toBe(1);
          const [request] = await approver.pending();
          // Polls run meanwhile, so some have run CONSUME (pending) with their HMGET still on the way.
          await new Promise((resolve) => setTimeout(resolve, 300));
          expect(await approver.approve(request?.id ?? "")).toBe(true);
          expect(await within(waiting, 3_000)).toMatchObject({ ok: true });
        }
        expect(counted.runs()).toBe(5);
        await broker.close();
        await approver.close();
      }, 30_000);

      it("waiting for a subagent ends at its timeout and abort while Redis hangs", async ({ expect }) => {
        const redis = client();
        const local = new InProcessSubagentManager({
          runner: { runPrompt: () => new Promise((resolve) => setTimeout(() => resolve({ output: "done" }), 1_500)) },
        });
        const manager = new RedisSubagentManager({ redis, local, prefix: "hang-sub", leaseMs: 5_000, pollIntervalMs: 50 });
        const scope = createRegistry({ tools: [echo] })
          .createRun()
          .scope();
        const snapshot = await manager.start({ task: "t", ownerId: "o", depth: 1, scope });
        // Control: a short wait on a healthy server returns the running snapshot at its timeout.
        expect(await within(manager.wait(snapshot.id, { timeoutMs: 100 }), 2_000)).toMatchObject({ status: "running" });

        hanging.server.pause();
        let started = Date.now();
        // Nothing read before the deadline: a structured rejection, not `undefined` ("unknown id").
        await expect(within(manager.wait(snapshot.id, { timeoutMs: 300 }), 3_000)).rejects.toThrow(/did not answer/);
        expect(Date.now() - started).toBeLessThan(2_000);
        const controller = new AbortController();
        setTimeout(() => controller.abort(), 100);
        started = Date.now();
        await expect(within(manager.wait(snapshot.id, { timeoutMs: 60_000, signal: controller.signal }), 3_000)).rejects.toThrow(
          /did not answer/,
        );
        expect(Date.now() - started).toBeLessThan(2_000);

        hanging.server.resume();
        expect(await within(manager.wait(snapshot.id, { timeoutMs: 10_000 }), 12_000)).toMatchObject({ status: "completed" });
        manager.close();
      }, 30_000);

      it("a full Redis (maxmemory, noeviction) fails saves and requests with Redis's OOM error, and claims nothing", async ({
        expect,
      }) => {
        const redis = client();
        const admin = client();
        const store = new RedisRunStore({ redis, prefix: "oom-run" });
        const broker = new RedisApprovalBroker({ redis, prefix: "oom-apr", timeoutMs: 5_000 });
        const run = await openRun(createRegistry({ tools: [echo], approvals: broker }), {
          store,
          runId: "r",
          permissions: { approval: "destructive" },
        });
        expect(await run.call("echo", { n: 1 }, { approved: true })).toMatchObject({ ok: true });
        expect((await store.load("r"))?.revision).toBe(1);
        try {
          await admin.config("SET", "maxmemory", "1mb");
          await admin.config("SET", "maxmemory-policy", "noeviction");
          await expect(
            (async () => {
              for (let i = 0; i < 100; i++) await admin.set(`oom-fill:${i}`, "x".repeat(100_000));
            })(),
          ).rejects.toThrow(/OOM/);

          // The call's result comes back; its save is reported failed; the stored state stays revision 1.
          expect(await run.call("echo", { n: 2 }, { approved: true })).toMatchObject({ ok: true, output: 2 });
          expect(run.diagnostics().map((diagnostic) => diagnostic.message)).toEqual([expect.stringMatching(/OOM/)]);
          expect((await store.load("r"))?.revision).toBe(1);
          // A call that needs approval cannot be asked for: denied, saying the approval service
          // failed (not "failed inside the tool catalog"); tool.error carries Redis's error.
          const errors: unknown[] = [];
          const off = run.events.on("tool.error", (event) => errors.push(event.cause));
          expect(await within(run.call("echo", { n: 3 }), 5_000)).toMatchObject({
            ok: false,
            error: { code: "approval_denied", message: expect.stringContaining("approval service failed") },
          });
          off();
          expect(String(errors[0])).toMatch(/OOM/);
          expect(await broker.pending()).toEqual([]);
        } finally {
          await admin.flushall();
          await admin.config("SET", "maxmemory", "0");
        }
        await broker.close();
      }, 30_000);

      it("a Redis restarted empty loses the run: later saves are refused as conflicts, never written as a new history", async ({
        expect,
      }) => {
        const redis = client();
        const store = new RedisRunStore({ redis, prefix: "empty-run" });
        const registry = createRegistry({ tools: [echo] });
        const run = await openRun(registry, { store, runId: "r" });
        expect(await run.call("echo", { n: 1 })).toMatchObject({ ok: true });
        expect(await run.call("echo", { n: 2 })).toMatchObject({ ok: true });
        expect((await store.load("r"))?.revision).toBe(2);

        await hanging.server.kill();
        await hanging.server.start();
        await expect.poll(() => redis.status, { timeout: 5_000 }).toBe("ready");
        expect(await within(run.call("echo", { n: 3 }), 12_000)).toMatchObject({ ok: true, output: 3 });
        // Expected revision 2, found none: refused (another process may have started the run anew).
        expect(run.diagnostics().map((diagnostic) => diagnostic.kind)).toEqual(["state_save_failed"]);
        expect(await store.load("r")).toBeUndefined();
        // Reopened, the run starts fresh and saves again.
        const reopened = await openRun(registry, { store, runId: "r" });
        expect(await reopened.call("echo", { n: 4 })).toMatchObject({ ok: true });
        expect((await store.load("r"))?.revision).toBe(1);
      }, 30_000);
    });
  });
});
