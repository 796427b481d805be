/**
 * Durable-run figures on a real `redis-server` (started here on 127.0.0.1, stopped after):
 * - approval round trip across processes: a child process asks, this process approves as soon
 *   as the request is listed; the child times request-to-decision (p50/p99), beside the
 *   in-memory broker's in-process round trip as the reference;
 * - run state save/load with `RedisRunStore` at 10, 100 and 1,000 activated tools (size, times);
 * - delayed-callback firing skew with 4 worker processes (fired at minus due at), and, unless
 *   quick, one cron firing with 4 workers.
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { createRegistry, defineTool, InMemoryApprovalBroker } from "agent-tool-catalog";
import { BullMqCallbackManager, BullMqCronScheduler, RedisApprovalBroker, RedisRunStore } from "agent-tool-catalog/redis";
import { Redis } from "ioredis";
import { z } from "zod";
import { startJobWorker } from "../../test/redis/support/job-workers.js";
import { startRedisServer } from "../../test/support/redis-server.js";
import { percentile } from "../stats.js";

const root = fileURLToPath(new URL("../..", import.meta.url));

/** What {@link runRedisBench} measured. */
export interface RedisBenchResults {
  readonly approvalRoundTripMs: { readonly samples: number; readonly p50: number; readonly p99: number };
  readonly inMemoryRoundTripMs: { readonly p50: number; readonly p99: number };
  readonly runState: readonly { activated: number; bytes: number; saveMs: number; loadMs: number }[];
  readonly callbackSkewMs: {
    readonly callbacks: number;
    readonly workers: number;
    readonly p50: number;
    readonly p99: number;
    readonly max: number;
    readonly duplicates: number;
  };
  readonly cronSkewMs: { readonly workers: number; readonly firings: number; readonly skew: number } | "not run (--quick)";
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function approvalRoundTrips(url: string, count: number): Promise<number[]> {
  const redis = new Redis(url);
  const approver = new RedisApprovalBroker({ redis, prefix: "bench-approval" });
  const child = spawn(
    process.execPath,
    ["--import", "tsx", fileURLToPath(new URL("./approval-requester.ts", import.meta.url)), url, "bench-approval", String(count)],
    {
      cwd: root,
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  let output = "";
  child.stdout.on("data", (chunk) => {
    output += chunk;
  });
  const done = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  let finished = false;
  void done.then(() => {
    finished = true;
  });
  while (!finished) {
    for (const request of await approver.pending()) await approver.approve(request.id);
    await sleep(1);
  }
  redis.disconnect();
  return JSON.parse(output) as number[];
}

async function inMemoryRoundTrips(count: number): Promise<number[]> {
  const broker = new InMemoryApprovalBroker();
  broker.events.on("approval.requested", (request) => queueMicrotask(() => broker.approve(request.id)));
  const out: number[] = [];
  for (let n = 0; n < count; n++) {
    const started = performance.now();
    await broker.request({ runId: "r", callId: String(n), toolName: "t", input: {}, mutating: true, policy: "destructive" });
    out.push(performance.now() - started);
  }
  return out;
}

async function runStateFigures(url: string, sizes: readonly number[]): Promise<RedisBenchResults["runState"]> {
  const redis = new Redis(url);
  const store = new RedisRunStore({ redis, prefix: "bench-state" });
  const out: { activated: number; bytes: number; saveMs: number; loadMs: number }[] = [];
  for (const size of sizes) {
    const registry = createRegistry();
    const names = Array.from({ length: size }, (_, n) => `tool_${n}`);
    for (const name of names) {
      registry.register(
        defineTool({ name, description: `Tool ${name}.`, tier: "deferred", inputSchema: z.object({}), handler: () => "ok" }),
      );
    }
    const run = registry.createRun();
    run.activate(names);
    const state = run.toJSON();
    const saves: number[] = [];
    const loads: number[] = [];
    for (let round = 0; round < 20; round++) {
      let started = performance.now();
      await store.save(run.id, state);
      saves.push(performance.now() - started);
      started = performance.now();
      await store.load(run.id);
      loads.push(performance.now() - started);
    }
    out.push({
      activated: size,
      bytes: Buffer.byteLength(JSON.stringify(state)),
      saveMs: round3(percentile(saves, 50)),
      loadMs: round3(percentile(loads, 50)),
    });
  }
  redis.disconnect();
  return out;
}

async function callbackSkew(port: number, callbacks: number, workerCount: number): Promise<RedisBenchResults["callbackSkewMs"]> {
  const prefix = "bench-callbacks";
  const workers = await Promise.all(Array.from({ length: workerCount }, (_, n) => startJobWorker(port, prefix, `w${n}`)));
  const manager = new BullMqCallbackManager({ connection: { host: "127.0.0.1", port, maxRetriesPerRequest: null }, prefix });
  for (let n = 0; n < callbacks; n++) await manager.schedule({ conversationId: `c${n}`, delaySeconds: 5, message: "bench" });
  const deadline = Date.now() + 20_000;
  const fired = () => workers.flatMap((worker) => worker.firings);
  while (fired().length < callbacks && Date.now() < deadline) await sleep(100);
  await sleep(1_000);
  const skews = fired().map((firing) => firing.at - (firing.dueAt ?? firing.at));
  const ids = fired().map((firing) => firing.id);
  await manager.close();
  for (const worker of workers) await worker.kill("SIGTERM");
  return {
    callbacks,
    workers: workerCount,
    p50: percentile(skews, 50),
    p99: percentile(skews, 99),
    max: Math.max(...skews),
    duplicates: ids.length - new Set(ids).size,
  };
}

async function cronSkew(port: number, workerCount: number): Promise<Exclude<RedisBenchResults["cronSkewMs"], string>> {
  const prefix = "bench-cron";
  const workers = await Promise.all(Array.from({ length: workerCount }, (_, n) => startJobWorker(port, prefix, `c${n}`)));
  const scheduler = new BullMqCronScheduler({
    connection: { host: "127.0.0.1", port, maxRetriesPerRequest: null },
    prefix,
    runShell: async () => ({ exitCode: 0, output: "" }),
  });
  const job = await scheduler.create({
    name: "bench",
    schedule: "* * * * *",
    executionType: "shell",
    command: "true",
    timeoutSeconds: 5,
    conversationId: "c",
  });
  const due = job.nextRunAt as number;
  await sleep(due - Date.now() + 3_000);
  const firings = workers.flatMap((worker) => worker.firings).filter((firing) => firing.kind === "cron");
  await scheduler.close();
  for (const worker of workers) await worker.kill("SIGTERM");
  return { workers: workerCount, firings: firings.length, skew: (firings[0]?.at ?? Number.NaN) - due };
}

function round3(value: number): number {
  return Math.round(value * 1000) / 1000;
}

/** Runs the durable-run bench, or says why it cannot (no `redis-server`). */
export async function runRedisBench(options: { readonly quick: boolean }): Promise<RedisBenchResults | string> {
  let server: Awaited<ReturnType<typeof startRedisServer>>;
  try {
    server = await startRedisServer();
  } catch (error) {
    return `not run: ${(error as Error).message} (install redis-server)`;
  }
  try {
    const count = options.quick ? 50 : 300;
    const rounds = await approvalRoundTrips(server.url, count);
    const memory = await inMemoryRoundTrips(count);
    return {
      approvalRoundTripMs: { samples: rounds.length, p50: round3(percentile(rounds, 50)), p99: round3(percentile(rounds, 99)) },
      inMemoryRoundTripMs: { p50: round3(percentile(memory, 50)), p99: round3(percentile(memory, 99)) },
      runState: await runStateFigures(server.url, [10, 100, 1_000]),
      callbackSkewMs: await callbackSkew(server.port, options.quick ? 10 : 40, 4),
      cronSkewMs: options.quick ? "not run (--quick)" : await cronSkew(server.port, 4),
    };
  } finally {
    await server.stop();
  }
}

/** The README table of {@link runRedisBench}'s results. */
export function renderRedisBench(results: RedisBenchResults | string): string {
  if (typeof results === "string") return `**Durable runs (Redis)**: ${results}.\n`;
  const lines = [
    "**Durable runs (Redis 7, real `redis-server` on 127.0.0.1, real worker processes)**",
    "",
    "| Measure | Figure |",
    "| --- | --- |",
    `| Approval round trip across processes (request in A, approve in B), p50 / p99 | ${results.approvalRoundTripMs.p50} / ${results.approvalRoundTripMs.p99} ms (${results.approvalRoundTripMs.samples} requests; in-memory broker in one process: ${results.inMemoryRoundTripMs.p50} / ${results.inMemoryRoundTripMs.p99} ms) |`,
    ...results.runState.map(
      (row) =>
        `| Run state with ${row.activated} activated tools: size, save, load (median) | ${row.bytes} B, ${row.saveMs} ms, ${row.loadMs} ms |`,
    ),
    `| Delayed callbacks, 4 worker processes: firing skew p50 / p99 / max | ${results.callbackSkewMs.p50} / ${results.callbackSkewMs.p99} / ${results.callbackSkewMs.max} ms (${results.callbackSkewMs.callbacks} callbacks, ${results.callbackSkewMs.duplicates} duplicates) |`,
    typeof results.cronSkewMs === "string"
      ? `| Cron firing skew, 4 workers | ${results.cronSkewMs} |`
      : `| Cron firing skew, 4 workers | ${results.cronSkewMs.skew} ms after the minute (${results.cronSkewMs.firings} firing) |`,
    "",
  ];
  return lines.join("\n");
}
