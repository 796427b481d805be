import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { createRegistry, openRun } from "agent-tool-catalog";
import { InProcessSubagentManager, InProcessWorkflowService, refreshChildRuns } from "agent-tool-catalog/host";
import { RedisRunStore, RedisSubagentManager, RedisWorkflowService } from "agent-tool-catalog/redis";
import type { Redis } from "ioredis";
import { beforeAll, describe, expect, it } from "vitest";
import { capability } from "../support/capabilities.js";
import { spawnNode } from "../support/child-entry.js";
import { useRedisServer } from "../support/redis-server.js";

const redisCapability = capability("redis");
const root = fileURLToPath(new URL("../..", import.meta.url));
const script = fileURLToPath(new URL("./fixtures/parent-run-host.mjs", import.meta.url));
const LEASE_MS = 1_000;

describe.skipIf(redisCapability.missing)(
  redisCapability.label("child runs: a run continued in another process lists its children and their state"),
  () => {
    const server = useRedisServer();
    let redis: Redis;
    beforeAll(() => {
      redis = server.client();
    });

    it("lists the children a killed process started, and reports the ones it was running as failed", async () => {
      const child = spawnNode(script, [server.url, "kids", "conv-7-run", String(LEASE_MS)], {
        cwd: root,
        stdio: ["ignore", "pipe", "inherit"],
      });
      const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
      const ids = await new Promise<{ quick: string; slow: string; workflow: string }>((resolve, reject) => {
        createInterface({ input: child.stdout as NodeJS.ReadableStream }).on("line", (line) => {
          const parsed = JSON.parse(line) as { ready?: { quick: string; slow: string; workflow: string } };
          if (parsed.ready !== undefined) resolve(parsed.ready);
        });
        child.once("exit", () => reject(new Error("the parent run's process ended early")));
      });
      child.kill("SIGKILL");
      await exited;

      // This process runs nothing itself; it sees the other process's children through Redis.
      const refuse = { runPrompt: () => Promise.reject(new Error("this process runs no agent")) };
      const subagents = new RedisSubagentManager({
        redis,
        prefix: "kids",
        leaseMs: LEASE_MS,
        local: new InProcessSubagentManager({ runner: refuse }),
      });
      const workflows = new RedisWorkflowService({
        redis,
        prefix: "kids",
        leaseMs: LEASE_MS,
        local: new InProcessWorkflowService({ runner: refuse }),
      });
      try {
        const store = new RedisRunStore({ redis, prefix: "kids" });
        const run = await openRun(createRegistry(), { store, runId: "conv-7-run" });
        expect(run.childRuns()).toEqual([
          expect.objectContaining({ kind: "subagent", id: ids.quick, status: "completed", label: "quick look at the README" }),
          expect.objectContaining({ kind: "subagent", id: ids.slow, status: "running", label: "watch the build" }),
          expect.objectContaining({ kind: "workflow", id: ids.workflow, status: "running", label: "audit" }),
        ]);

        // Once the dead process's leases run out, refreshing reports its children failed, and saves that.
        await expect
          .poll(async () => (await refreshChildRuns(run, { subagents, workflows })).map((child) => child.status), {
            timeout: 10_000,
            interval: 200,
          })
          .toEqual(["completed", "failed", "failed"]);
        await run.save();
        const reopened = await openRun(createRegistry(), { store, runId: "conv-7-run" });
        // In any order: childRuns() lists the least recently recorded first, and which of the two
        // leases the polls above saw run out first (so recorded last) depends on the machine's load.
        const rows = reopened.childRuns().map((child) => [child.id, child.status, typeof child.finishedAt]);
        expect(rows).toHaveLength(3);
        expect(rows).toEqual(
          expect.arrayContaining([
            [ids.quick, "completed", "number"],
            [ids.slow, "failed", "number"],
            [ids.workflow, "failed", "number"],
          ]),
        );
        expect(await workflows.get(ids.workflow)).toMatchObject({ error: { code: "workflow_interrupted" } });
      } finally {
        subagents.close();
        workflows.close();
      }
    }, 40_000);
  },
);
