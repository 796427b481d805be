/**
 * Red team round 12b, durable runs: a process is killed with `kill -9` after a call was approved,
 * while its handler runs (its first effect done). The run's stored state still lists the call as
 * waiting for approval (it is saved when the request is made and after the call), so the process
 * that resumes the run must not tell the model "the tool did not run; call it again": it may have
 * run, and a repeated deploy or payment is the worse mistake. Real processes, a real redis-server.
 */
import type { ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { createRegistry, openRun } from "agent-tool-catalog";
import { RedisApprovalBroker, RedisRunStore } from "agent-tool-catalog/redis";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { capability } from "../support/capabilities.js";
import { spawnNode } from "../support/child-entry.js";
import { useRedisServer } from "../support/redis-server.js";

const redisCapability = capability("redis");
const root = fileURLToPath(new URL("../..", import.meta.url));
const runnerScript = fileURLToPath(new URL("../redis/fixtures/approved-runner.mjs", import.meta.url));

function startRunner(url: string, prefix: string, runId: string, effectFile: string) {
  const child = spawnNode(runnerScript, [url, prefix, runId, effectFile], {
    cwd: root,
    stdio: ["ignore", "pipe", "inherit"],
  });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream })[Symbol.asyncIterator]();
  const next = async (): Promise<Record<string, unknown>> => {
    const line = await lines.next();
    if (line.done === true) throw new Error("the runner process ended without output");
    return JSON.parse(line.value) as Record<string, unknown>;
  };
  return { child, next };
}

function killed(child: ChildProcess): Promise<void> {
  child.kill("SIGKILL");
  return child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise((resolve) => child.once("exit", () => resolve()));
}

describe.skipIf(redisCapability.missing)(redisCapability.label("a run resumed after its process died"), () => {
  const server = useRedisServer();
  let redis: Redis;
  let directory: string;
  let prefix = 0;
  const nextPrefix = () => `killed-after-approval-${++prefix}`;

  beforeAll(async () => {
    redis = server.client();
    directory = await mkdtemp(path.join(tmpdir(), "atc-killed-after-approval-"));
  });
  afterAll(async () => {
    if (directory !== undefined) await rm(directory, { recursive: true, force: true });
  });

  async function resume(ns: string, runId: string) {
    const broker = new RedisApprovalBroker({ redis, prefix: ns });
    const run = await openRun(createRegistry({ approvals: broker }), { store: new RedisRunStore({ redis, prefix: ns }), runId });
    return { broker, run };
  }

  it("a call approved and killed while its handler ran is not reported as one that did not run", async () => {
    const ns = nextPrefix();
    const effect = path.join(directory, "approved.txt");
    const runner = startRunner(server.url, ns, "run-approved", effect);
    const { requested } = await runner.next();
    const approver = new RedisApprovalBroker({ redis, prefix: ns });
    expect(await approver.approve(requested as string)).toBe(true);
    expect(await runner.next()).toEqual({ effect });
    await killed(runner.child);
    expect(existsSync(effect)).toBe(true);

    const { broker, run } = await resume(ns, "run-approved");
    expect(run.interruptedCalls()).toMatchObject([{ approvalId: requested, callId: "call-1", toolName: "deploy" }]);
    const [result] = await run.settleInterrupted();
    expect(result).toMatchObject({ ok: false, callId: "call-1", error: { code: "call_interrupted" } });
    const error = result?.ok === false ? result.error : undefined;
    // The deploy did start: the model must not be told it did not, nor to simply call it again.
    expect(error?.message).not.toMatch(/did not run/);
    expect(error?.message).toMatch(/approved/);
    expect(error?.message).toMatch(/may have run/);
    expect(error?.hint).toMatch(/before/);
    await broker.close();
    await approver.close();
  }, 30_000);

  it("control: a call killed while it still waited for approval is reported as not run", async () => {
    const ns = nextPrefix();
    const effect = path.join(directory, "waiting.txt");
    const runner = startRunner(server.url, ns, "run-waiting", effect);
    const { requested } = await runner.next();
    await killed(runner.child);
    expect(existsSync(effect)).toBe(false);

    const { broker, run } = await resume(ns, "run-waiting");
    expect(run.interruptedCalls()).toMatchObject([{ approvalId: requested, callId: "call-1" }]);
    const [result] = await run.settleInterrupted();
    expect(result).toMatchObject({
      ok: false,
      callId: "call-1",
      error: { code: "call_interrupted", message: expect.stringMatching(/did not run/) },
    });
    await broker.close();
  }, 30_000);
});
