/**
 * Red team round 7: the Redis-backed calls that had no bound of their own (`openRun`'s load, the
 * store's delete, the approval broker's `pending` / `approve` / `deny` / `resolution`, a
 * subagent's and a workflow run's `get` / `cancel`) against a real `redis-server` stopped with
 * SIGSTOP, on clients with ioredis's defaults (no `commandTimeout`). Each must reject with a
 * `RedisTimeoutError` within its `operationTimeoutMs`, claim nothing Redis does not hold, and
 * work again once Redis answers. Controls: the same calls on the healthy server.
 */
import { CatalogError, ConfigurationError, createRegistry, openRun } from "agent-tool-catalog";
import {
  CONVERSATION_ID_CONTEXT_KEY,
  InProcessSubagentManager,
  InProcessWorkflowService,
  subagentToolGroup,
  workflowToolGroup,
} from "agent-tool-catalog/host";
import {
  RedisApprovalBroker,
  RedisRunStore,
  RedisSubagentManager,
  RedisTimeoutError,
  RedisWorkflowService,
} from "agent-tool-catalog/redis";
import { describe, expect, it } from "vitest";
import { capability } from "../support/capabilities.js";
import { echoTool as echo, useHangingRedis, within } from "./support/hanging-redis.js";

const redisCapability = capability("redis");

/** The rejection of `promise` (fails the test when it resolves or takes longer than `ms`). */
async function rejection(promise: Promise<unknown>, ms: number): Promise<RedisTimeoutError> {
  const settled = await within(
    promise.then(
      (value) => ({ value }),
      (error: unknown) => ({ error }),
    ),
    ms,
  );
  if (settled === "still waiting") throw new Error(`still waiting after ${ms} ms`);
  if (!("error" in settled)) throw new Error(`resolved with ${JSON.stringify(settled.value)}`);
  expect(settled.error).toBeInstanceOf(RedisTimeoutError);
  expect(CatalogError.isInstance(settled.error)).toBe(true);
  return settled.error as RedisTimeoutError;
}

describe.skipIf(redisCapability.missing)(redisCapability.label("Redis calls bounded while Redis hangs"), () => {
  // The test that waits out the default 10 s bound runs beside the others, on a server of its own
  // (its pause is its own): after them, it was 10 of this file's 17 s.
  describe.concurrent("the default bound", () => {
    const hanging = useHangingRedis(100);
    const client = () => hanging.client();
    it("the default bound is 10 s (a stopped server no longer holds openRun forever)", async ({ expect }) => {
      const store = new RedisRunStore({ redis: client(), prefix: "bound-default" });
      expect(await store.load("r")).toBeUndefined(); // control: connected and answering
      hanging.server.pause();
      const started = Date.now();
      const error = await rejection(store.load("r"), 15_000);
      expect(error.waitedMs).toBe(10_000);
      expect(Date.now() - started).toBeGreaterThanOrEqual(9_900);
    }, 30_000);
  });

  describe.concurrent("the bounds the others set", () => {
    describe.sequential("one at a time, on one server", () => {
      const hanging = useHangingRedis(100);
      const client = () => hanging.client();

      it("openRun's load and the store's delete reject with redis_timeout, and the stored run is untouched", async ({
        expect,
      }) => {
        const redis = client();
        const store = new RedisRunStore({ redis, prefix: "bound-run", operationTimeoutMs: 400 });
        const registry = createRegistry({ tools: [echo] });
        // Control: healthy, the run is stored and continued.
        const first = await openRun(registry, { store, runId: "r" });
        expect(await first.call("echo", { n: 1 })).toMatchObject({ ok: true });
        expect((await store.load("r"))?.revision).toBe(1);

        hanging.server.pause();
        let started = Date.now();
        const loadError = await rejection(openRun(registry, { store, runId: "r" }), 3_000);
        expect(Date.now() - started).toBeLessThan(2_000);
        expect(loadError).toMatchObject({
          code: "redis_timeout",
          operation: "RedisRunStore.load",
          waitedMs: 400,
          mayHaveRun: false,
        });
        expect(loadError.message).toMatch(/did not answer RedisRunStore\.load within 400 ms; nothing was read/);
        started = Date.now();
        const deleteError = await rejection(store.delete("other"), 3_000);
        expect(Date.now() - started).toBeLessThan(2_000);
        expect(deleteError).toMatchObject({ operation: "RedisRunStore.delete", mayHaveRun: true });
        expect(deleteError.message).toMatch(/not confirmed and may still be applied/);

        hanging.server.resume();
        // Nothing was claimed or written: the run continues at the revision it had.
        const again = await openRun(registry, { store, runId: "r" });
        expect((await store.load("r"))?.revision).toBe(1);
        expect(await again.call("echo", { n: 2 })).toMatchObject({ ok: true });
        expect((await store.load("r"))?.revision).toBe(2);
      }, 30_000);

      it("operationTimeoutMs outside 1..2^31-1 is a ConfigurationError naming the field", ({ expect }) => {
        const redis = client();
        for (const bad of [0, -1, 1.5, 2 ** 31, Number.NaN]) {
          expect(() => new RedisRunStore({ redis, operationTimeoutMs: bad })).toThrow(ConfigurationError);
          expect(() => new RedisApprovalBroker({ redis, operationTimeoutMs: bad })).toThrow(/operationTimeoutMs/);
        }
        expect(() => new RedisRunStore({ redis, operationTimeoutMs: 1 })).not.toThrow(); // control
      });

      it("the approval broker's pending, approve, deny and resolution reject with redis_timeout; a request is decided once", async ({
        expect,
      }) => {
        const broker = new RedisApprovalBroker({ redis: client(), prefix: "bound-apr", timeoutMs: 20_000, pollIntervalMs: 50 });
        const approver = new RedisApprovalBroker({ redis: client(), prefix: "bound-apr", operationTimeoutMs: 300 });
        const run = createRegistry({ tools: [echo], approvals: broker }).createRun({ permissions: { approval: "all" } });
        const waiting = run.call("echo", { n: 7 });
        // Control: healthy, the request is listed.
        await expect.poll(async () => (await approver.pending()).length, { timeout: 10_000 }).toBe(1);
        const [request] = await approver.pending();
        const id = request?.id ?? "";
        expect(await approver.resolution(id)).toBeUndefined();

        hanging.server.pause();
        const started = Date.now();
        expect(await rejection(approver.pending(), 2_000)).toMatchObject({ operation: "RedisApprovalBroker.pending" });
        expect(await rejection(approver.resolution(id), 2_000)).toMatchObject({ operation: "RedisApprovalBroker.resolution" });
        const approveError = await rejection(approver.approve(id), 2_000);
        expect(approveError).toMatchObject({ operation: "RedisApprovalBroker.approve", mayHaveRun: true });
        const denyError = await rejection(approver.deny(id, "no"), 2_000);
        expect(denyError).toMatchObject({ operation: "RedisApprovalBroker.deny", mayHaveRun: true });
        expect(Date.now() - started).toBeLessThan(4_000);

        hanging.server.resume();
        // The unconfirmed approve was sent first and lands first; the deny after it finds the
        // request decided. The call and Redis agree on one decision.
        const result = await within(waiting, 10_000);
        expect(result).toMatchObject({ ok: true, output: 7 });
        expect(await approver.resolution(id)).toMatchObject({ decision: "approved" });
        expect(await approver.pending()).toEqual([]);
        await broker.close();
        await approver.close();
      }, 30_000);

      it("a subagent's and a workflow run's get and cancel reject with redis_timeout, never 'unknown'", async ({ expect }) => {
        const redis = client();
        const local = new InProcessSubagentManager({
          runner: { runPrompt: () => new Promise((resolve) => setTimeout(() => resolve({ output: "done" }), 1_000)) },
        });
        const starter = new RedisSubagentManager({ redis, local, prefix: "bound-sub", leaseMs: 30_000 });
        const reader = new RedisSubagentManager({
          redis: client(),
          local: new InProcessSubagentManager({ runner: { runPrompt: async () => ({ output: "" }) } }),
          prefix: "bound-sub",
          operationTimeoutMs: 300,
        });
        const scope = createRegistry({ tools: [echo] })
          .createRun()
          .scope();
        const snapshot = await starter.start({ task: "t", ownerId: "o", depth: 1, scope });
        // Control: healthy, another process reads it.
        expect(await reader.get(snapshot.id)).toMatchObject({ status: "running" });
        const workflows = new RedisWorkflowService({
          redis: client(),
          local: new InProcessWorkflowService({ runner: { runPrompt: async () => ({ output: "" }) } }),
          prefix: "bound-wf",
          operationTimeoutMs: 300,
        });
        expect(await workflows.get("nope")).toBeUndefined();

        hanging.server.pause();
        const started = Date.now();
        expect(await rejection(reader.get(snapshot.id), 2_000)).toMatchObject({ operation: "subagent get", mayHaveRun: false });
        expect(await rejection(reader.cancel(snapshot.id), 2_000)).toMatchObject({
          operation: "subagent cancel",
          mayHaveRun: true,
        });
        expect(await rejection(workflows.get("nope"), 2_000)).toMatchObject({ operation: "workflow get" });
        expect(await rejection(workflows.cancel("nope"), 2_000)).toMatchObject({ operation: "workflow cancel" });
        expect(Date.now() - started).toBeLessThan(4_000);

        hanging.server.resume();
        // The cancel request was not confirmed; once Redis answers the subagent ends one way or the other.
        await expect
          .poll(async () => (await reader.get(snapshot.id))?.status, { timeout: 10_000 })
          .toMatch(/^(completed|cancelled)$/);
        starter.close();
        reader.close();
        workflows.close();
      }, 30_000);

      it("subagent and workflow tools report redis_timeout (a listed code, with mayHaveRun and retry advice), not tool_failed", async ({
        expect,
      }) => {
        const slowRunner = {
          runPrompt: ({ signal }: { signal: AbortSignal }) =>
            new Promise<{ output: string }>((resolve, reject) => {
              const timer = setTimeout(() => resolve({ output: "done" }), 5_000);
              signal.addEventListener("abort", () => {
                clearTimeout(timer);
                reject(signal.reason);
              });
            }),
        };
        const manager = new RedisSubagentManager({
          redis: client(),
          local: new InProcessSubagentManager({ runner: slowRunner }),
          prefix: "bound-tools",
          leaseMs: 30_000,
          operationTimeoutMs: 300,
        });
        const service = new RedisWorkflowService({
          redis: client(),
          local: new InProcessWorkflowService({ runner: slowRunner }),
          prefix: "bound-tools",
          operationTimeoutMs: 300,
        });
        const registry = createRegistry({ groups: [subagentToolGroup({ manager }), workflowToolGroup({ service })] });
        const run = registry.createRun({ profile: "full", context: { [CONVERSATION_ID_CONTEXT_KEY]: "conv-t" } });
        run.activate(["start_subagent", "get_subagent", "wait_subagent", "run_workflow"]);
        // Control: healthy, the tools answer.
        const started = await run.call("start_subagent", { task: "first" });
        expect(started).toMatchObject({ ok: true, output: { status: "running" } });
        const id = (started.ok ? (started.output as { id: string }).id : "") as string;
        expect(await run.call("get_subagent", { id })).toMatchObject({ ok: true, output: { id, status: "running" } });

        hanging.server.pause();
        const begun = Date.now();
        // A read: nothing changed, retry later.
        const read = await within(run.call("get_subagent", { id }), 3_000);
        expect(read).toMatchObject({
          ok: false,
          error: {
            code: "redis_timeout",
            message: expect.stringContaining("mayHaveRun: false"),
            hint: expect.stringContaining("Try again in a few seconds"),
          },
        });
        // A start whose claim was sent: it may still land, so look before retrying.
        const start = await within(run.call("start_subagent", { task: "second" }), 3_000);
        expect(start).toMatchObject({
          ok: false,
          error: {
            code: "redis_timeout",
            message: expect.stringContaining("mayHaveRun: true"),
            hint: expect.stringContaining("check whether it took effect"),
          },
        });
        const resumed = await within(run.call("run_workflow", { resume_run_id: "wf_unknown" }), 3_000);
        expect(resumed).toMatchObject({ ok: false, error: { code: "redis_timeout" } });
        expect(Date.now() - begun).toBeLessThan(6_000);

        hanging.server.resume();
        // Once Redis answers, the same calls work again.
        expect(await run.call("get_subagent", { id })).toMatchObject({ ok: true, output: { id } });
        manager.close();
        service.close();
      }, 30_000);

      it("pending and resolution say mayHaveRun true exactly when they had sent the denial of an overdue request", async ({
        expect,
      }) => {
        const raw = client();
        const approver = new RedisApprovalBroker({ redis: client(), prefix: "bound-flag", operationTimeoutMs: 300 });
        const store = async (id: string, expiresAt: number) => {
          await raw.hset(`bound-flag:approval:${id}`, {
            status: "pending",
            request: JSON.stringify({ id, runId: "r", callId: "c", toolName: "echo", input: {}, requestedAt: 0, expiresAt }),
            digest: "d",
            runId: "r",
            expiresAt: String(expiresAt),
          });
          await raw.zadd("bound-flag:approvals:pending", expiresAt, id);
        };
        await store("apr_fresh", Date.now() + 600_000);
        // Writes held by Redis itself (CLIENT PAUSE WRITE): reads answer, a denial's script waits.
        await raw.client("PAUSE", 3_000, "WRITE");
        // Control: nothing overdue, so nothing is written and both answer while writes are held.
        expect((await approver.pending()).map((request) => request.id)).toEqual(["apr_fresh"]);
        expect(await approver.resolution("apr_fresh")).toBeUndefined();
        await raw.client("UNPAUSE");

        await store("apr_overdue", Date.now() - 1_000);
        await raw.client("PAUSE", 3_000, "WRITE");
        const pendingError = await rejection(approver.pending(), 2_000);
        expect(pendingError).toMatchObject({ operation: "RedisApprovalBroker.pending", mayHaveRun: true });
        // Another connection: the first one's later commands queue behind its held denial.
        const other = new RedisApprovalBroker({ redis: client(), prefix: "bound-flag", operationTimeoutMs: 300 });
        const resolutionError = await rejection(other.resolution("apr_overdue"), 2_000);
        expect(resolutionError).toMatchObject({ operation: "RedisApprovalBroker.resolution", mayHaveRun: true });
        await raw.client("UNPAUSE");
        // The denial it said may land did land.
        await expect
          .poll(() => approver.resolution("apr_overdue"), { timeout: 5_000 })
          .toMatchObject({ decision: "denied", resolvedBy: "timeout" });

        // A server that answers nothing: nothing was read, so nothing was sent either.
        await store("apr_overdue2", Date.now() - 1_000);
        hanging.server.pause();
        expect(await rejection(approver.pending(), 2_000)).toMatchObject({ mayHaveRun: false });
        expect(await rejection(approver.resolution("apr_overdue2"), 2_000)).toMatchObject({ mayHaveRun: false });
        hanging.server.resume();
        await approver.close();
        await other.close();
      }, 30_000);

      it("the approval broker's close ends within operationTimeoutMs while Redis is stopped, denying the calls still waiting", async ({
        expect,
      }) => {
        const broker = new RedisApprovalBroker({
          redis: client(),
          prefix: "bound-close",
          timeoutMs: 60_000,
          pollIntervalMs: 50,
          operationTimeoutMs: 300,
        });
        const lister = new RedisApprovalBroker({ redis: client(), prefix: "bound-close" });
        const run = createRegistry({ tools: [echo], approvals: broker }).createRun({ permissions: { approval: "all" } });
        const waiting = run.call("echo", { n: 1 });
        await expect.poll(async () => (await lister.pending()).length, { timeout: 10_000 }).toBe(1);
        const [request] = await lister.pending();

        hanging.server.pause();
        const started = Date.now();
        expect(await within(broker.close(), 3_000)).toBeUndefined();
        expect(Date.now() - started).toBeLessThan(2_500);
        // Denied by "abort": the run reports the call aborted, and the tool did not run.
        expect(await within(waiting, 2_000)).toMatchObject({ ok: false, error: { code: "aborted" } });

        hanging.server.resume();
        // The denial sent while Redis was stopped landed: nobody can approve the call now.
        await expect.poll(() => lister.resolution(request?.id ?? ""), { timeout: 5_000 }).toMatchObject({ decision: "denied" });
        expect(await lister.approve(request?.id ?? "")).toBe(false);
        await lister.close();
      }, 30_000);
    });
  });
});
