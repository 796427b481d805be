import type { ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { InProcessSubagentManager } from "agent-tool-catalog/host";
import { RedisSubagentManager } from "agent-tool-catalog/redis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { capability } from "../support/capabilities.js";
import { spawnNode } from "../support/child-entry.js";
import { useRedisServer } from "../support/redis-server.js";
import { stopProcess } from "../support/stop-process.js";

const redisCapability = capability("redis");
const root = fileURLToPath(new URL("../..", import.meta.url));
const script = fileURLToPath(new URL("./fixtures/subagent-host.mjs", import.meta.url));

/** Every host started, killed after the suite: a test that timed out (at high load) leaves none running. */
const hosts: ChildProcess[] = [];

async function startHost(url: string, prefix: string, ms: number, leaseMs: number): Promise<{ child: ChildProcess; id: string }> {
  const child = spawnNode(script, [url, prefix, String(ms), String(leaseMs)], {
    cwd: root,
    stdio: ["ignore", "pipe", "inherit"],
  });
  hosts.push(child);
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream })[Symbol.asyncIterator]();
  const first = await lines.next();
  if (first.done === true) throw new Error("the subagent host ended early");
  return { child, id: (JSON.parse(first.value) as { started: string }).started };
}

const exited = (child: ChildProcess) =>
  child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise<void>((resolve) => child.once("exit", () => resolve()));

describe.skipIf(redisCapability.missing)(
  redisCapability.label("RedisSubagentManager: started in one process, awaited from another"),
  () => {
    const server = useRedisServer();
    let manager: RedisSubagentManager;
    beforeAll(() => {
      const redis = server.client();
      // This process runs nothing itself: its local manager has a runner that must not be called.
      const local = new InProcessSubagentManager({
        runner: { runPrompt: () => Promise.reject(new Error("this process runs no subagent")) },
      });
      manager = new RedisSubagentManager({ redis, local, prefix: "sub", leaseMs: 600, pollIntervalMs: 100 });
    });
    afterAll(async () => {
      manager?.close();
      // Waited for: until they have exited they still talk to the Redis server stopped after this.
      await Promise.all(hosts.splice(0).map((child) => stopProcess(child)));
    });

    it("waits from another process for a subagent to complete", async () => {
      // A subagent of 5 s and a short wait of 1 s: at load 35 a Redis round trip took past a 100 ms
      // wait ("Redis did not answer subagent wait within 100 ms"), so the wait said nothing.
      const host = await startHost(server.url, "sub", 5_000, 600);
      expect(await manager.get(host.id)).toMatchObject({ status: "running", task: "summarise the logs", ownerId: "conv-1" });
      // A short wait times out while it still runs; a long one sees the end.
      expect(await manager.wait(host.id, { timeoutMs: 1_000 })).toMatchObject({ status: "running" });
      expect(await manager.wait(host.id, { timeoutMs: 30_000 })).toMatchObject({
        status: "completed",
        output: "done: summarise the logs",
      });
      await exited(host.child);
      expect(await manager.get("sub_unknown")).toBeUndefined();
    }, 60_000);

    it("cancels from another process", async () => {
      const host = await startHost(server.url, "sub", 60_000, 600);
      expect(await manager.cancel(host.id)).toMatchObject({ status: "cancelled" });
      expect(await manager.get(host.id)).toMatchObject({ status: "cancelled" });
      await exited(host.child);
    }, 30_000);

    it("reports a subagent whose process was killed as failed once its lease runs out, never running forever", async () => {
      const host = await startHost(server.url, "sub", 60_000, 600);
      host.child.kill("SIGKILL");
      await exited(host.child);
      // Positive control: right after the kill the lease still holds.
      expect((await manager.get(host.id))?.status).toBe("running");
      const ended = await manager.wait(host.id, { timeoutMs: 5_000 });
      expect(ended).toMatchObject({ status: "failed", error: expect.stringMatching(/stopped/) });
    }, 30_000);
  },
);
