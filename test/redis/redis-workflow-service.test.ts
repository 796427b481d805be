import type { ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { createRegistry, type RunScope } from "agent-tool-catalog";
import {
  CONVERSATION_ID_CONTEXT_KEY,
  defineWorkflow,
  InProcessWorkflowService,
  workflowToolGroup,
} from "agent-tool-catalog/host";
import { RedisWorkflowService } from "agent-tool-catalog/redis";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { capability } from "../support/capabilities.js";
import { spawnNode } from "../support/child-entry.js";
import { useRedisServer } from "../support/redis-server.js";
import { stopProcess } from "../support/stop-process.js";
import { stepsWorkflow } from "./fixtures/steps-workflow.mjs";
import { within } from "./support/hanging-redis.js";

const redisCapability = capability("redis");
const root = fileURLToPath(new URL("../..", import.meta.url));
const script = fileURLToPath(new URL("./fixtures/workflow-host.mjs", import.meta.url));
const LEASE_MS = 1_000;

interface Host {
  readonly child: ChildProcess;
  readonly runId: string;
  /** Every line the host printed after {"started"}, parsed. */
  readonly lines: Record<string, unknown>[];
  /** Ends `count` agent calls of a host started with steps of "stdin" (the current one first). */
  release(count: number): void;
}

/** Every host started, killed after the suite: a test that timed out (at high load) leaves none running. */
const hosts: ChildProcess[] = [];

/** A host whose agent calls take `stepMs` each, or, with "stdin", end when the test releases them. */
async function startHost(url: string, stepMs: number | "stdin", steps: number): Promise<Host> {
  const child = spawnNode(script, [url, "wf", String(stepMs), String(steps), String(LEASE_MS)], {
    cwd: root,
    stdio: ["pipe", "pipe", "inherit"],
  });
  hosts.push(child);
  const lines: Record<string, unknown>[] = [];
  const runId = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).on("line", (line) => {
      const parsed = JSON.parse(line) as Record<string, unknown>;
      if (typeof parsed.started === "string") resolve(parsed.started);
      else lines.push(parsed);
    });
    child.once("exit", () => reject(new Error("the workflow host ended before starting a run")));
  });
  return {
    child,
    runId,
    lines,
    release: (count) => {
      if (child.exitCode === null && child.signalCode === null) child.stdin?.write("next\n".repeat(count));
    },
  };
}

const exited = (child: ChildProcess) =>
  child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise<void>((resolve) => child.once("exit", () => resolve()));
const agentCalls = (host: Host) => host.lines.filter((line) => typeof line.agentCall === "number").length;

describe.skipIf(redisCapability.missing)(
  redisCapability.label("RedisWorkflowService: workflow runs started in one process, awaited from another"),
  () => {
    const server = useRedisServer();
    let redis: Redis;
    let service: RedisWorkflowService;
    beforeAll(() => {
      redis = server.client();
      // This process runs no workflow itself: its local service has a runner that must not be called.
      const local = new InProcessWorkflowService({
        runner: { runPrompt: () => Promise.reject(new Error("this process runs no workflow")) },
      });
      service = new RedisWorkflowService({ redis, local, prefix: "wf", leaseMs: LEASE_MS, pollIntervalMs: 100 });
    });
    afterAll(async () => {
      service?.close();
      // Waited for: until they have exited they still talk to the Redis server stopped after this.
      await Promise.all(
        hosts.splice(0).map((child) => {
          // A stalled starter (SIGSTOP) is let go first, so the kill ends it.
          if (child.exitCode === null && child.signalCode === null) child.kill("SIGCONT");
          return stopProcess(child);
        }),
      );
    });

    it("shows progress and the result to another process, and run_workflow there waits for it", async () => {
      // Steps end when this test says: with 400 ms steps a loaded machine finished the run before
      // the 50 ms wait below looked, which then saw it completed rather than running.
      const host = await startHost(server.url, "stdin", 3);
      expect(await service.get(host.runId)).toMatchObject({ status: "running", workflow: "steps", ownerId: "conv-1" });
      host.release(1);
      // Progress reaches the record with the lease renewals.
      await expect.poll(async () => (await service.get(host.runId))?.agentCalls, { timeout: 5_000 }).toBeGreaterThan(0);
      // Step 2 is held: a short wait times out while the run still runs.
      expect(await service.wait(host.runId, { timeoutMs: 50 })).toMatchObject({ status: "running" });

      // The model-facing tool in this process picks the run up by id and waits for it.
      const registry = createRegistry({ groups: [workflowToolGroup({ service })] });
      const run = registry.createRun({ profile: "full", context: { [CONVERSATION_ID_CONTEXT_KEY]: "conv-1" } });
      run.activate(["run_workflow"]);
      const picking = run.call("run_workflow", { resume_run_id: host.runId, timeout_seconds: 20 });
      host.release(2);
      const picked = await picking;
      expect(picked).toMatchObject({ ok: true });
      expect(picked.ok && picked.output).toMatchObject({
        status: "completed",
        agent_calls: 3,
        tokens: 45,
        result: ["done: step 1 of logs", "done: step 2 of logs", "done: step 3 of logs"],
      });
      // Another conversation does not see it.
      const stranger = registry.createRun({ profile: "full", context: { [CONVERSATION_ID_CONTEXT_KEY]: "conv-2" } });
      stranger.activate(["run_workflow"]);
      expect(await stranger.call("run_workflow", { resume_run_id: host.runId })).toMatchObject({
        ok: false,
        error: { code: "unknown_workflow_run" },
      });
      await exited(host.child);
      expect(host.lines.at(-1)).toEqual({ ended: "completed" });
      expect(agentCalls(host)).toBe(3);
      expect(await service.get("wf_unknown")).toBeUndefined();
    }, 30_000);

    it("cancels from another process: the running process stops the run", async () => {
      const host = await startHost(server.url, 60_000, 3);
      expect(await service.cancel(host.runId)).toMatchObject({ status: "cancelled", error: { code: "cancelled" } });
      await exited(host.child);
      expect(host.lines.at(-1)).toEqual({ ended: "cancelled" });
      expect(await service.get(host.runId)).toMatchObject({ status: "cancelled" });
    }, 30_000);

    it("reports a run whose process was killed -9 as interrupted once its lease runs out; no resume where its workflow is unknown", async () => {
      const host = await startHost(server.url, 60_000, 3);
      host.child.kill("SIGKILL");
      await exited(host.child);
      // Positive control: right after the kill the lease still holds.
      expect((await service.get(host.runId))?.status).toBe("running");
      const ended = await service.wait(host.runId, { timeoutMs: 5_000 });
      expect(ended).toMatchObject({ status: "failed", error: { code: "workflow_interrupted" } });
      expect(ended?.finishedAt).toEqual(expect.any(Number));
      // This process has no "steps" workflow registered: it cannot take the run over.
      await expect(service.resume(host.runId)).rejects.toMatchObject({ code: "resume_refused" });
      expect(await service.get(host.runId)).toMatchObject({ status: "failed", error: { code: "workflow_interrupted" } });
    }, 30_000);

    it("resumes a killed starter's run in another process from its checkpoint: finished agent calls replayed, one resumer runs it", async () => {
      // Agent calls end when the test releases them, so the kill lands while step 3 is in flight
      // however loaded the machine (with 300 ms steps a side-by-side CI run saw step 4 start before
      // the kill: 4 calls, not 3; then 1.5 s steps made the test wait 3 s for it).
      const host = await startHost(server.url, "stdin", 4);
      host.release(2);
      // Steps 1 and 2 finished (journaled and checkpointed), step 3 in flight: kill -9 then.
      await expect.poll(() => agentCalls(host), { timeout: 10_000 }).toBe(3);
      await new Promise((resolve) => setTimeout(resolve, 100));
      host.child.kill("SIGKILL");
      await exited(host.child);
      expect(agentCalls(host)).toBe(3);
      expect(await service.wait(host.runId, { timeoutMs: 5_000 })).toMatchObject({
        status: "failed",
        error: { code: "workflow_interrupted" },
      });

      // Two processes' worth of services (each its own owner and runner) resume at once.
      const prompts: string[][] = [[], []];
      const resumers = prompts.map((seen) => {
        const local = new InProcessWorkflowService({
          runner: {
            runPrompt: async ({ prompt }) => {
              seen.push(prompt);
              await new Promise((resolve) => setTimeout(resolve, 50));
              return { output: `done: ${prompt}`, usage: { inputTokens: 10, outputTokens: 5 } };
            },
          },
          workflows: [stepsWorkflow(4)],
        });
        return new RedisWorkflowService({ redis, local, prefix: "wf", leaseMs: LEASE_MS, pollIntervalMs: 100 });
      });
      try {
        const resumed = await Promise.all(resumers.map((resumer) => resumer.resume(host.runId)));
        expect(resumed.map((snapshot) => snapshot.status)).toEqual(["running", "running"]);
        const ended = await service.wait(host.runId, { timeoutMs: 10_000 });
        expect(ended).toMatchObject({
          status: "completed",
          result: ["done: step 1 of logs", "done: step 2 of logs", "done: step 3 of logs", "done: step 4 of logs"],
        });
        // Exactly one resumer ran it, and only the calls not journaled: step 3 (in flight at the kill) and 4.
        const ran = prompts.filter((seen) => seen.length > 0);
        expect(ran).toEqual([["step 3 of logs", "step 4 of logs"]]);
        // Positive control: a completed run is not run again.
        expect(await resumers[0]?.resume(host.runId)).toMatchObject({ status: "completed" });
        expect(prompts.flat()).toHaveLength(2);
      } finally {
        for (const resumer of resumers) resumer.close();
      }
    }, 40_000);

    it("a run that failed before its claim landed is resumed in another process from its checkpoint, its finished call replayed", async () => {
      // Its one agent call and its failure came before the claim's round trip (a fresh subscriber
      // connection) ended, so the end was written right after the claim: the checkpoint saved
      // after the claim was refused (the record had ended) and the one after the agent call too
      // (no record yet). At load ~12 test/escape/child-runs-workflow-resume's control hit it.
      const gate = { failures: 1 };
      const serviceWith = (prompts: string[]) =>
        new RedisWorkflowService({
          redis,
          prefix: "wf-early-end",
          local: new InProcessWorkflowService({
            runner: {
              runPrompt: async (request) => {
                prompts.push(request.prompt);
                return { output: request.prompt, usage: { inputTokens: 1, outputTokens: 1 } };
              },
            },
            workflows: [
              defineWorkflow({
                name: "fails-once",
                description: "An agent call, a failure the first time, then a second agent call.",
                run: async (ctx) => {
                  await ctx.agent("first");
                  if (gate.failures-- > 0) throw new Error("a transient failure");
                  return ctx.agent("second");
                },
              }),
            ],
          }),
        });
      const herePrompts: string[] = [];
      const therePrompts: string[] = [];
      const here = serviceWith(herePrompts);
      const there = serviceWith(therePrompts);
      try {
        const scope: RunScope = {
          runId: "run-1",
          permissions: { sandbox: "workspace", approval: "none", workspace: "/tmp/wf-early-end" },
          allowedTools: undefined,
          depth: 0,
        };
        const started = await here.start("fails-once", {}, { ownerId: "conv", depth: 0, scope });
        expect(await here.wait(started.runId, { timeoutMs: 5_000 })).toMatchObject({
          status: "failed",
          error: { message: "a transient failure" },
        });
        expect(herePrompts).toEqual(["first"]);
        expect(await there.resume(started.runId, { scope })).toMatchObject({ status: "running" });
        expect(await there.wait(started.runId, { timeoutMs: 5_000 })).toMatchObject({ status: "completed", result: "second" });
        // The first call came from the checkpoint, not run again.
        expect(therePrompts).toEqual(["second"]);
      } finally {
        here.close();
        there.close();
      }
    }, 20_000);

    it("a starter that stalled past its lease stops its copy: the run never completes after being reported failed", async () => {
      // Step 1 is held until the test releases it: with 500 ms steps a loaded machine ran step 2
      // before the poll below saw 1 call, or the resumed starter's overdue step timer ran more steps
      // before its renewal learnt the run was lost.
      const host = await startHost(server.url, "stdin", 4);
      await expect.poll(() => agentCalls(host), { timeout: 5_000 }).toBe(1);
      host.child.kill("SIGSTOP");
      try {
        const ended = await service.wait(host.runId, { timeoutMs: 5_000 });
        expect(ended).toMatchObject({ status: "failed", error: { code: "workflow_interrupted" } });
      } finally {
        host.child.kill("SIGCONT");
      }
      // The starter learns at its next renewal that the run is no longer its to run, and ends
      // without another step released. One that kept running its copy is let run to its end here,
      // so the checks below see what it did.
      if ((await within(exited(host.child), 10_000)) === "still waiting") host.release(4);
      await exited(host.child);
      expect(host.lines.at(-1)).toEqual({ ended: "cancelled" });
      expect(agentCalls(host)).toBeLessThan(4);
      // The starter has exited, so nothing can change the record any more: still failed, never completed.
      expect(await service.get(host.runId)).toMatchObject({ status: "failed", error: { code: "workflow_interrupted" } });
    }, 30_000);
  },
);
