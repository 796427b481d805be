/**
 * README ("Calling tools"): a call id's claim "is a 30 s lease renewed while the call runs", and
 * "a dead process's claim lapses within 30 s". Neither had a test: the tests before ended every
 * call within the lease. Here, against a real redis-server, with the lease at 6 s
 * (`RedisRunStore`'s `callClaimTtlMs`; the same claim, renewal and lapse as the 30 s default, a
 * fifth of the wait, renewed every 2 s):
 * - a process (the fixture `call-id-runner.mjs`, a real child) is killed with SIGKILL while its
 *   call runs: another process's call under that id is `duplicate_call_id` at once, and runs
 *   once the lease (plus a margin) has passed, nobody having released the claim;
 * - a call that runs past the lease still holds its id: another copy of the run (another store
 *   and connection, as another process has) is `duplicate_call_id` 2 s past its first lease.
 *   Without the renewal it ran beside the first call.
 * Control: once the long call ended, its id runs again. The default lease is 30 s: a call under a
 * store left at its default holds a claim Redis expires 30 s after its last renewal.
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
/** The lease these tests use (the default is {@link DEFAULT_LEASE_MS}). */
const LEASE_MS = 6_000;
/** README's lease: what a store left at its default claims for. */
const DEFAULT_LEASE_MS = 30_000;
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

  it("a killed process's claim lapses within its lease; a call running past the lease keeps its id", async () => {
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
      registry.createRun({
        runId: "conv",
        store: new RedisRunStore({ redis: server.client(), prefix: PREFIX, callClaimTtlMs: LEASE_MS }),
      });
    const holder = copy();
    const other = copy();

    // The process that dies: its call of "deploy" under "toolu_dead" has started (its effect line is written).
    const effect = join(dir, "effect");
    const start = join(dir, "start");
    writeFileSync(effect, "");
    child = spawnNode(script, [server.url, PREFIX, "conv", "toolu_dead", effect, start, "120000", String(LEASE_MS)], {
      cwd: root,
      stdio: ["ignore", "ignore", "inherit"],
    });
    writeFileSync(start, "");
    await until("the child's call to start", () => readFileSync(effect, "utf8").includes("deployed"), 60_000);
    child.kill("SIGKILL");
    await until("the child to end", () => child?.exitCode !== null || child?.signalCode !== null, 10_000);
    const killedAt = Date.now();

    // The long call, in this process: it runs past its lease.
    const long = holder.call("deploy", { target: "long" }, { callId: "toolu_long" });
    await until("the long call to start", () => ran === 1, 10_000);
    // Its claim was taken before its handler ran, so before now.
    const longStartedAt = Date.now();

    expect(code(await other.call("deploy", { target: "dead" }, { callId: "toolu_dead" }))).toBe("duplicate_call_id");
    expect(code(await other.call("deploy", { target: "probe" }, { callId: "toolu_long" }))).toBe("duplicate_call_id");
    expect(ran).toBe(1);

    // 2 s past both leases: the dead one's (renewed at the latest at the kill) and the long call's
    // first one (taken before longStartedAt), had it not been renewed.
    await sleep(Math.max(0, Math.max(killedAt, longStartedAt) + LEASE_MS + 2_000 - Date.now()));
    // Renewed while it runs: still refused past its first lease.
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

  it("a store left at its default claims a call id for 30 s", async () => {
    let gate: () => void = () => undefined;
    let ran = false;
    const registry = createRegistry({
      tools: [
        defineTool({
          name: "deploy",
          description: "Deploys the service.",
          inputSchema: z.object({ target: z.string() }),
          handler: async ({ target }) => {
            ran = true;
            await new Promise<void>((resolve) => (gate = resolve));
            return `deployed ${target}`;
          },
        }),
      ],
    });
    const prefix = `${PREFIX}-default`;
    const redis = server.client();
    const run = registry.createRun({ runId: "conv", store: new RedisRunStore({ redis, prefix }) });
    const call = run.call("deploy", { target: "prod" }, { callId: "toolu_default" });
    await until("the call to start", () => ran, 10_000);
    const keys = (await redis.keys(`${prefix}*`)).filter((key) => key.includes("toolu_default"));
    expect(keys).toHaveLength(1);
    const ttl = await redis.pttl(keys[0] as string);
    // Renewed every 10 s: read within 10 s of its last renewal, it has more than 20 s left.
    expect(ttl).toBeGreaterThan(DEFAULT_LEASE_MS - 10_000);
    expect(ttl).toBeLessThanOrEqual(DEFAULT_LEASE_MS);
    gate();
    expect(code(await call)).toBe("ok");
    await registry.close();
  }, 60_000);
});
