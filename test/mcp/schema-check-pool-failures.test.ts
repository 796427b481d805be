// A thread of the schema check pool that cannot start must cost only that thread. Before: when an
// extra thread (started because the first was busy) failed to start or died before it was ready,
// every queued check failed as `unavailable` although the first thread was healthy.
import path from "node:path";
import { pathToFileURL } from "node:url";
import { Worker, type WorkerOptions } from "node:worker_threads";
import { describe, expect, it } from "vitest";
import type { JsonSchema } from "../../src/tool/json-schema.js";
import { type CreateWorker, type SchemaCheckResult, SchemaCheckWorker } from "../../src/tool/schema-check-worker.js";
import { childFormat, repoRoot } from "../support/child-entry.js";
import { doubleCheck } from "./servers/slow-schemas.mjs";

const PLAIN: JsonSchema = { type: "object", properties: { n: { type: "number" } } };
/**
 * A hang bound, not a claim: at load 20 on 2 cores a busy check ends at its wall-time bound (ten
 * times its CPU limit) and each thread starts in seconds; stop 55 measured 18-24 s per test with
 * 1-2 s limits, and the 30 s this file had was missed by every test at 2-6 s limits.
 */
const HANG_BOUND_MS = 60_000;

/** An argument nested `depth` deep: 2^depth checks against `doubleCheck` (minutes at 30). */
function nested(depth: number): unknown {
  let node: Record<string, unknown> = {};
  for (let level = 0; level < depth; level++) node = { child: node };
  return { tree: node };
}

/**
 * The built thread when the build is current (test/support/child-entry.ts): the pool, from src/,
 * would start the source thread through tsx, about 0.45 s of CPU more per start. Same code: the
 * build is newer than every source file.
 */
const builtThread = childFormat() === "dist" ? pathToFileURL(path.join(repoRoot, "dist/schema-check-thread.js")) : undefined;

/** Real threads; `fail(n)` says how the n-th start (1-based) goes wrong, if it does. */
function threads(fail: (n: number) => "throws" | "dies" | undefined): { create: CreateWorker; starts: () => number } {
  let count = 0;
  const create = (file: string | URL, options: WorkerOptions): Worker => {
    count++;
    const failure = fail(count);
    if (failure === "throws") throw new Error("simulated: ERR_WORKER_INIT_FAILED");
    // A real thread that dies before it is ready.
    if (failure === "dies") return new Worker("throw new Error('simulated: died while loading')", { eval: true });
    return builtThread === undefined ? new Worker(file, options) : new Worker(builtThread, { ...options, eval: false });
  };
  return { create, starts: () => count };
}

/**
 * Makes thread 1 ready, then keeps it busy with a check that runs to `slowMs`: of the thread's
 * CPU time (src/tool/thread-cpu-time.ts), all of it spent here, so its wall time stretches with the
 * load as another thread's start does. Stop 55: 2, 2, 2.5 and 6 s of busy thread were 12.5 s of
 * the file's CPU; a thread's start takes 0.05-0.5 s of CPU, so 1-2 s still leave it a wide margin.
 */
async function busyPool(
  create: CreateWorker,
  slowMs: number,
): Promise<{ pool: SchemaCheckWorker; slow: Promise<SchemaCheckResult> }> {
  const pool = new SchemaCheckWorker({ createWorker: create });
  expect(await pool.check(1, PLAIN, { n: 1 }, 20_000)).toEqual({ kind: "checked", issues: undefined });
  return { pool, slow: pool.check(2, doubleCheck, nested(30), slowMs) };
}

describe("schema check pool: a thread that cannot start", () => {
  it.each(["throws", "dies"] as const)(
    "an extra thread that %s leaves the queued checks to the healthy thread",
    async (failure) => {
      const { create, starts } = threads((n) => (n === 2 ? failure : undefined));
      const { pool, slow } = await busyPool(create, 1_000);
      // Thread 1 is busy: this check starts thread 2, which fails.
      const queued = pool.check(3, PLAIN, { n: "x" }, 20_000);
      expect(await slow).toEqual({ kind: "timeout", stage: "check" });
      // Thread 1 was stopped at the time limit; a new one takes the queued check.
      expect(await queued).toMatchObject({ kind: "checked", issues: [expect.objectContaining({ path: "n" })] });
      expect(starts()).toBe(3);
    },
    HANG_BOUND_MS,
  );

  it(
    "threads that die before they are ready are not restarted over and over",
    async () => {
      const slowMs = 1_500;
      // Every start but the first dies while thread 1 runs the slow check (a margin before its
      // time limit, after which thread 1 is restarted).
      let failUntil = Number.POSITIVE_INFINITY;
      const { create, starts } = threads((n) => (n > 1 && performance.now() < failUntil ? "dies" : undefined));
      const { pool, slow } = await busyPool(create, slowMs);
      failUntil = performance.now() + slowMs - 300;
      const queued = [pool.check(3, PLAIN, { n: 1 }, 20_000), pool.check(4, PLAIN, { n: 2 }, 20_000)];
      expect(await slow).toEqual({ kind: "timeout", stage: "check" });
      expect(await Promise.all(queued)).toEqual([
        { kind: "checked", issues: undefined },
        { kind: "checked", issues: undefined },
      ]);
      // Thread 1, one extra thread tried while it was busy (not one per death), thread 1 again.
      expect(starts()).toBe(3);
    },
    HANG_BOUND_MS,
  );

  it(
    "control: a healthy pool runs a queued check on a second thread while the first is busy",
    async () => {
      const { create, starts } = threads(() => undefined);
      const { pool, slow } = await busyPool(create, 2_000);
      let slowDone = false;
      void slow.then(() => {
        slowDone = true;
      });
      expect(await pool.check(3, PLAIN, { n: 1 }, 20_000)).toEqual({ kind: "checked", issues: undefined });
      expect(slowDone).toBe(false);
      expect(starts()).toBe(2);
      expect(await slow).toEqual({ kind: "timeout", stage: "check" });
    },
    HANG_BOUND_MS,
  );

  it("control: when no thread can start, the queued checks end unavailable", async () => {
    const { create, starts } = threads(() => "throws");
    const pool = new SchemaCheckWorker({ createWorker: create });
    const results = await Promise.all([pool.check(1, PLAIN, { n: 1 }, 5_000), pool.check(2, PLAIN, { n: 2 }, 5_000)]);
    for (const result of results) {
      expect(result).toEqual({ kind: "unavailable", message: expect.stringContaining("simulated: ERR_WORKER_INIT_FAILED") });
    }
    // One start per check, each failing its own.
    expect(starts()).toBe(2);
    // A thread that dies before it is ready, with none other running, also ends them.
    const dying = new SchemaCheckWorker({ createWorker: threads(() => "dies").create });
    expect(await dying.check(1, PLAIN, { n: 1 }, 5_000)).toMatchObject({ kind: "unavailable" });
  });
});
