/**
 * README ("Calling tools"): a call id's claim "is a 30 s lease renewed while the call runs", and
 * "a dead process's claim lapses within 30 s". Neither had a test: the tests before ended every
 * call within the lease. Here, against a real redis-server:
 * - a process (the fixture `call-id-runner.mjs`, a real child) is killed with SIGKILL while its
 *   call runs: another process's call under that id is `duplicate_call_id` at once, and runs
 *   once 30 s (plus a margin) have passed, nobody having released the claim;
 * - a call that runs past the lease (here 32 s) still holds its id: another copy of the run
 *   (another store and connection, as another process has) is `duplicate_call_id` after 31 s.
 *   Without the renewal it ran beside the first call.
 * Control: once the long call ended, its id runs again.
 */
import type { ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createRegistry, defineTool, type ToolCallResult } from "agent-tool-catalog";
import { RedisRunStore } from "agent-tool-catalog/redis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { capability } from "../support/capabilities.js";
import { spawnNode } from "../support/child-entry.js";
import { useRedisServer } from "../support/redis-server.js";
import { stopProcess } from "../support/stop-process.js";

const redisCapability = capability("redis");
const root = fileURLToPath(new URL("../..", import.meta.url));
const script = fileURLToPath(new URL("./fixtures/call-id-runner.mjs", import.meta.url));
const PREFIX = "lease";
const code = (result: ToolCallResult) => (result.ok ? "ok" : result.error.code);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(what: string, check: () => boolean, withinMs: number): Promise<void> {
  const end = Date.now() + withinMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

describe.skipIf(redisCapability.missing)(redisCapability.label("a call id's claim as a lease"), () => {
  const server = useRedisServer();
  let dir: string;
  let child: ChildProcess | undefined;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "atc-claim-lease-"));
  });
  afterAll(async () => {
    // A failed check before its kill: ended with the test, and waited for, since it writes in
    // `dir` (its effect file) until it has exited.
    if (child !== undefined) await stopProcess(child);
    rmSync(dir, { recursive: true, force: true });
  });

  it("a killed process's claim lapses within 30 s; a call running past 30 s keeps its id", async () => {
    let gate: () => void = () => undefined;
    let ran = 0;
    const registry = createRegistry({
      tools: [
        defineTool({
          name: "deploy",
          description: "Deploys the service.",
          inputSchema: z.object({ target: z.string() }),
          handler: async ({ target }) => {
            ran++;
            if (target === "long") await new Promise<void>((resolve) => (gate = resolve));
            return `deployed ${target}`;
          },
        }),
      ],
    });
    // Two copies of one run, each with a store and connection of its own, as two processes have.
    const copy = () =>
      registry.createRun({ runId: "conv", store: new RedisRunStore({ redis: server.client(), prefix: PREFIX }) });
    const holder = copy();
    const other = copy();

    // The process that dies: its call of "deploy" under "toolu_dead" has started (its effect line is written).
    const effect = join(dir, "effect");
    const start = join(dir, "start");
    writeFileSync(effect, "");
    child = spawnNode(script, [server.url, PREFIX, "conv", "toolu_dead", effect, start, "120000"], {
      cwd: root,
      stdio: ["ignore", "ignore", "inherit"],
    });
    writeFileSync(start, "");
    await until("the child's call to start", () => readFileSync(effect, "utf8").includes("deployed"), 60_000);
    child.kill("SIGKILL");
    await until("the child to end", () => child?.exitCode !== null || child?.signalCode !== null, 10_000);
    const killedAt = Date.now();

    // The long call, in this process: it runs past the 30 s lease.
    const long = holder.call("deploy", { target: "long" }, { callId: "toolu_long" });
    await until("the long call to start", () => ran === 1, 10_000);

    expect(code(await other.call("deploy", { target: "dead" }, { callId: "toolu_dead" }))).toBe("duplicate_call_id");
    expect(code(await other.call("deploy", { target: "probe" }, { callId: "toolu_long" }))).toBe("duplicate_call_id");
    expect(ran).toBe(1);

    await sleep(Math.max(0, killedAt + 31_500 - Date.now()));
    // Renewed while it runs: still refused past its first 30 s.
    expect(code(await other.call("deploy", { target: "probe" }, { callId: "toolu_long" }))).toBe("duplicate_call_id");
    // The dead process's claim lapsed: the call runs here.
    expect(code(await other.call("deploy", { target: "dead" }, { callId: "toolu_dead" }))).toBe("ok");
    expect(ran).toBe(2);

    // Control: the long call ended; its id is free again.
    gate();
    expect(code(await long)).toBe("ok");
    await sleep(200);
    expect(code(await other.call("deploy", { target: "again" }, { callId: "toolu_long" }))).toBe("ok");
    expect(existsSync(start)).toBe(true);
    await registry.close();
  }, 120_000);
});
