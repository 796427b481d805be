import type { ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { createRegistry, openRun } from "agent-tool-catalog";
import { RedisApprovalBroker, RedisRunStore } from "agent-tool-catalog/redis";
import type { Redis } from "ioredis";
import { beforeAll, describe, expect, it } from "vitest";
import { capability } from "../support/capabilities.js";
import { spawnNode } from "../support/child-entry.js";
import { useRedisServer } from "../support/redis-server.js";

const redisCapability = capability("redis");
const root = fileURLToPath(new URL("../..", import.meta.url));
const waiterScript = fileURLToPath(new URL("./fixtures/approval-waiter.mjs", import.meta.url));

interface Waiter {
  readonly child: ChildProcess;
  readonly lines: AsyncIterator<string>;
}

/** Starts a real Node process that makes one call needing approval and waits for it. */
function startWaiter(url: string, prefix: string, timeoutMs: number, runId: string): Waiter {
  const child = spawnNode(waiterScript, [url, prefix, String(timeoutMs), runId], {
    cwd: root,
    stdio: ["ignore", "pipe", "inherit"],
  });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream })[Symbol.asyncIterator]();
  return { child, lines };
}

async function nextJson(waiter: Waiter): Promise<Record<string, unknown>> {
  const line = await waiter.lines.next();
  if (line.done === true) throw new Error("the waiter process ended without output");
  return JSON.parse(line.value) as Record<string, unknown>;
}

function exited(child: ChildProcess): Promise<number | null> {
  return child.exitCode !== null ? Promise.resolve(child.exitCode) : new Promise((resolve) => child.once("exit", resolve));
}

describe.skipIf(redisCapability.missing)(redisCapability.label("RedisApprovalBroker across real processes"), () => {
  const server = useRedisServer();
  let redis: Redis;
  let prefix = 0;
  const nextPrefix = () => `t${++prefix}`;

  beforeAll(() => {
    redis = server.client();
  });

  it("a call waiting in process A is approved from process B, and runs once", async () => {
    const ns = nextPrefix();
    const waiter = startWaiter(server.url, ns, 30_000, "run-a");
    const { requested } = await nextJson(waiter);
    const broker = new RedisApprovalBroker({ redis, prefix: ns });
    const pending = await broker.pending({ runId: "run-a" });
    expect(pending.map((request) => request.id)).toEqual([requested]);
    expect(pending[0]).toMatchObject({ toolName: "deploy", input: { target: "prod" }, mutating: true });
    // Two people answer at once: exactly one decision is taken.
    const answers = await Promise.all([broker.approve(requested as string), broker.approve(requested as string)]);
    expect(answers.sort()).toEqual([false, true]);
    expect(await nextJson(waiter)).toEqual({ result: { ok: true }, effects: 1 });
    expect(await exited(waiter.child)).toBe(0);
    expect(await broker.pending()).toEqual([]);
    expect(await broker.resolution(requested as string)).toMatchObject({ decision: "approved", resolvedBy: "host" });
    await broker.close();
  }, 30_000);

  it("a denial from another process reaches the model with its reason (positive control for the approval above)", async () => {
    const ns = nextPrefix();
    const waiter = startWaiter(server.url, ns, 30_000, "run-d");
    const { requested } = await nextJson(waiter);
    const broker = new RedisApprovalBroker({ redis, prefix: ns });
    expect(await broker.deny(requested as string, "not on a Friday")).toBe(true);
    const { result, effects } = await nextJson(waiter);
    expect(effects).toBe(0);
    expect(JSON.stringify(result)).toContain("not on a Friday");
    await exited(waiter.child);
    await broker.close();
  }, 30_000);

  it("an approval bound to other arguments is refused, and the request stays pending", async () => {
    const ns = nextPrefix();
    const waiter = startWaiter(server.url, ns, 30_000, "run-b");
    const { requested } = await nextJson(waiter);
    const broker = new RedisApprovalBroker({ redis, prefix: ns });
    const seen = RedisApprovalBroker.argumentsDigest({
      runId: "run-b",
      callId: "1",
      toolName: "deploy",
      input: { target: "staging" },
    });
    expect(await broker.approve(requested as string, { argumentsDigest: seen })).toBe(false);
    const [request] = await broker.pending();
    expect(request?.id).toBe(requested);
    expect(await broker.approve(requested as string, { argumentsDigest: request?.argumentsDigest as string })).toBe(true);
    expect(await nextJson(waiter)).toMatchObject({ result: { ok: true }, effects: 1 });
    await exited(waiter.child);
    await broker.close();
  }, 30_000);

  it("when the waiting process is killed, the deadline still holds: the request is denied, never approved late", async () => {
    const ns = nextPrefix();
    const waiter = startWaiter(server.url, ns, 1_500, "run-k");
    const { requested } = await nextJson(waiter);
    waiter.child.kill("SIGKILL");
    await exited(waiter.child);
    const broker = new RedisApprovalBroker({ redis, prefix: ns });
    // Before the deadline it is still pending (nobody has decided)...
    expect((await broker.pending()).map((request) => request.id)).toEqual([requested]);
    await new Promise((resolve) => setTimeout(resolve, 1_700));
    // ...after it, an approval is refused and the request reads as denied by the timeout.
    expect(await broker.approve(requested as string)).toBe(false);
    expect(await broker.pending()).toEqual([]);
    expect(await broker.resolution(requested as string)).toMatchObject({ decision: "denied", resolvedBy: "timeout" });
    // A third process (this one) resumes the run from Redis: the call is reported denied.
    const resumed = await openRun(createRegistry({ approvals: broker }), {
      store: new RedisRunStore({ redis, prefix: ns }),
      runId: "run-k",
    });
    expect(resumed.interruptedCalls()).toMatchObject([{ approvalId: requested, callId: "call-1", toolName: "deploy" }]);
    expect(await resumed.settleInterrupted()).toMatchObject([
      { ok: false, callId: "call-1", error: { code: "approval_denied" } },
    ]);
    await broker.close();
  }, 30_000);

  it("a waiting process with nothing else to do stays alive until its timeout denies the call", async () => {
    const ns = nextPrefix();
    const waiter = startWaiter(server.url, ns, 1_000, "run-t");
    await nextJson(waiter);
    const { result, effects } = await nextJson(waiter);
    expect(effects).toBe(0);
    expect(result).toMatchObject({ ok: false });
    expect(JSON.stringify(result)).toMatch(/approv/i);
    expect(await exited(waiter.child)).toBe(0);
  }, 30_000);

  it("in one process: abort withdraws the request, and close denies what still waits", async () => {
    const ns = nextPrefix();
    const broker = new RedisApprovalBroker({ redis, prefix: ns, timeoutMs: 60_000 });
    const controller = new AbortController();
    const base = { runId: "r", toolName: "deploy", input: {}, mutating: true, policy: "destructive" as const };
    const aborted = broker.request({ ...base, callId: "1" }, { signal: controller.signal });
    const closed = broker.request({ ...base, callId: "2" });
    await expect.poll(async () => (await broker.pending()).length, { timeout: 10_000 }).toBe(2);
    controller.abort();
    expect(await aborted).toMatchObject({ decision: "denied", resolvedBy: "abort" });
    await broker.close();
    expect(await closed).toMatchObject({ decision: "denied", resolvedBy: "abort" });
    expect(await new RedisApprovalBroker({ redis, prefix: ns }).pending()).toEqual([]);
  });
});
