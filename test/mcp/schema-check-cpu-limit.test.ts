// The schema check thread's time limit counts the CPU time the thread runs (Linux, /proc), not
// wall time. Before: at load 24 on 2 cores a harmless schema was refused `input_schema_too_slow`,
// its thread waiting for a CPU while the wall clock used its budget. A schema that makes the
// validator work past the limit is still refused; ten times the limit in wall time still ends a
// stage whose thread does not run; without /proc the limit is wall time.
import { existsSync } from "node:fs";
import { availableParallelism, setPriority } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { Worker, type WorkerOptions } from "node:worker_threads";
import { afterEach, describe, expect, it } from "vitest";
import type { JsonSchema } from "../../src/tool/json-schema.js";
import { type CreateWorker, SchemaCheckWorker } from "../../src/tool/schema-check-worker.js";
import { readThreadCpuMs } from "../../src/tool/thread-cpu-time.js";
import { type BackgroundLoop, startBackgroundLoop } from "../support/background-loop.js";
import { childFormat, repoRoot } from "../support/child-entry.js";
import { doubleCheck, nestedRefs } from "./servers/slow-schemas.mjs";

const onLinux = existsSync("/proc/thread-self/stat");

/** The built thread when the build is current (as schema-check-pool-failures.test.ts). */
const builtThread = childFormat() === "dist" ? pathToFileURL(path.join(repoRoot, "dist/schema-check-thread.js")) : undefined;

const started: Worker[] = [];
const loops: BackgroundLoop[] = [];
afterEach(async () => {
  await Promise.all(loops.splice(0).map((loop) => loop.stop()));
  await Promise.all(started.splice(0).map((worker) => worker.terminate()));
});

/** A schema compiled by a real thread: its CPU time as compiling ended (its reply) and when the reply came. */
interface Compiled {
  readonly cpuMs: number | undefined;
  readonly atMs: number;
}

/**
 * Real schema check threads; `statPath()` is the last one's /proc stat file, from its ready
 * message; `compiled()` the last compile it reported. This listener is added before the pool's
 * own, so `atMs` is no later than when the pool started the check stage.
 */
function realThreads(): { create: CreateWorker; statPath: () => string | undefined; compiled: () => Compiled | undefined } {
  let statPath: string | undefined;
  let compiled: Compiled | undefined;
  const create = (file: string | URL, options: WorkerOptions): Worker => {
    const worker = builtThread === undefined ? new Worker(file, options) : new Worker(builtThread, { ...options, eval: false });
    worker.on("message", (message: { kind?: string; statPath?: string; cpuMs?: number }) => {
      if (message.kind === "ready") statPath = message.statPath;
      if (message.kind === "compiled") compiled = { cpuMs: message.cpuMs, atMs: performance.now() };
    });
    started.push(worker);
    return worker;
  };
  return { create, statPath: () => statPath, compiled: () => compiled };
}

/** A thread that says it is ready (with its own stat file, or none) and then waits without running. */
function idleThreads(withStatPath: boolean): CreateWorker {
  return () => {
    const worker = new Worker(
      `const { parentPort } = require("node:worker_threads");
       const fs = require("node:fs");
       const statPath = ${withStatPath} ? "/proc/" + fs.readlinkSync("/proc/thread-self") + "/stat" : undefined;
       parentPort.on("message", () => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 120000));
       parentPort.postMessage({ kind: "ready", statPath });`,
      { eval: true },
    );
    started.push(worker);
    return worker;
  };
}

function nested(depth: number): unknown {
  let node: Record<string, unknown> = {};
  for (let level = 0; level < depth; level++) node = { child: node };
  return { tree: node };
}

/**
 * A harmless schema whose compile and check take tens of ms of CPU (100 properties, 20,000 items).
 * Its cost, in a fresh thread at load 14 on 2 cores (the machine's work plus 2 busy loops and a
 * process faulting 256 MB over and over): compile 100-130 ms, check 0-10 ms (3 runs). With 300
 * properties, as before, the compile took 370-390 ms (and 170-260 ms in a thread that had
 * compiled one such schema already): 7,500-9,800 minor page faults growing the fresh thread's
 * heap, at ~10 us each here and ~20 us on CI's virtual machine; the 400 ms positive control
 * below was refused at that load, and the starved thread below ran 500 ms on CI. Kept in the
 * product: a first schema pays for the heap it grows (its own memory, not the thread's start;
 * warming the thread with the same keywords before ready left the faults as they were, and
 * growing the heap there would cost every thread start as much).
 */
const HARMLESS: JsonSchema = {
  type: "object",
  properties: Object.fromEntries(
    Array.from({ length: 100 }, (_, index) => [`p${index}`, { type: "string", minLength: 1, pattern: `^v${index}` }]),
  ),
  additionalProperties: { type: "array", items: { type: "number", minimum: 0 } },
};
const HARMLESS_VALUE = { p1: "v1", list: Array.from({ length: 20_000 }, (_, index) => index) };

describe.skipIf(!onLinux)("schema check time limit: the checking thread's CPU time", () => {
  it("still refuses a schema whose compile works past the limit, and arguments whose check does", async () => {
    const { create } = realThreads();
    // The wall-time bound out of the way (400 s): the CPU time alone refuses these. With the
    // default 10x (4 s) the positive control was refused at load 45, its thread waiting.
    const pool = new SchemaCheckWorker({ createWorker: create, wallLimitFactor: 1_000 });
    // positive control: an ordinary schema compiles and checks within the same limit
    expect(await pool.check(1, HARMLESS, HARMLESS_VALUE, 400)).toEqual({ kind: "checked", issues: undefined });
    // 30 x 6 nested self-references: 1-2.5 s of CPU to compile.
    expect(await pool.check(2, nestedRefs(30, 6) as JsonSchema, {}, 400)).toEqual({ kind: "timeout", stage: "compile" });
    // 2^30 checks: minutes of CPU; shallow arguments check.
    expect(await pool.check(3, doubleCheck as JsonSchema, nested(3), 400)).toEqual({ kind: "checked", issues: undefined });
    expect(await pool.check(3, doubleCheck as JsonSchema, nested(30), 400)).toEqual({ kind: "timeout", stage: "check" });
    // 60 s at load ~45 (2 cores, 8 busy loops beside): a hang bound, not the claim.
  }, 300_000);

  it("accepts a harmless schema whose thread is starved of CPU far past the limit in wall time", async () => {
    const { create, statPath, compiled } = realThreads();
    const limitMs = 500;
    // The wall-time bound out of the way: this is about what counts towards the limit.
    const pool = new SchemaCheckWorker({ createWorker: create, wallLimitFactor: 1_000 });
    expect(await pool.check(1, { type: "object" }, {}, limitMs)).toEqual({ kind: "checked", issues: undefined });
    const stat = statPath();
    expect(stat, "the thread reports its /proc stat file").toMatch(/^\/proc\/\d+\/task\/\d+\/stat$/);
    // Starve the thread: nice 19 (weight 15 against a busy loop's 1024) beside a busy loop per
    // CPU. Nice 10 (weight 110) was meant to give ~1 s of wall for ~100 ms of compile, but an idle
    // machine compiled the schema in 50-120 ms of CPU within 240-440 ms of wall, under the limit,
    // even with 3 loops per CPU (and the loops run until the check ends, burning CPU).
    setPriority(Number(/task\/(\d+)/.exec(stat as string)?.[1]), 19);
    // A round whose compile was not held past the limit in wall time shows nothing (the clean-clone
    // CI of ac6ea989, near idle: 120 ms of CPU in 401 ms of wall): the next round adds a busy loop
    // per CPU and compiles again (a new id), up to 3 loops per CPU. Every round must be accepted
    // within the limit's CPU time; the last must have been starved past it.
    let measured = "";
    let starvedMs = 0;
    for (let round = 0; round < 3 && starvedMs <= limitMs; round++) {
      for (let index = 0; index < availableParallelism(); index++) loops.push(startBackgroundLoop("while :; do :; done"));
      // The thread is idle here: this is the CPU time the pool reads as the compile starts.
      const cpuBefore = readThreadCpuMs(stat as string) as number;
      const checking = pool.check(2 + round, HARMLESS, HARMLESS_VALUE, limitMs);
      // After the pool started the compile stage's clock, so the walls measured here are no longer than its.
      const wallBefore = performance.now();
      const result = await checking;
      const wallEnd = performance.now();
      const cpuEnd = readThreadCpuMs(stat as string) as number;
      expect(result).toEqual({ kind: "checked", issues: undefined });
      // Each stage as the pool limits it: the compile from the thread's CPU time and the wall
      // clock at the check's start to the thread's "compiled" reply, the check from there to the end.
      const { cpuMs: compiledCpuMs, atMs: compiledAtMs } = compiled() as Compiled;
      const stages = {
        compileCpuMs: (compiledCpuMs as number) - cpuBefore,
        compileWallMs: Math.round(compiledAtMs - wallBefore),
        checkCpuMs: cpuEnd - (compiledCpuMs as number),
        checkWallMs: Math.round(wallEnd - compiledAtMs),
      };
      measured = `${measured}${JSON.stringify(stages)} `;
      // Each stage ran well within the limit, and (checked after the rounds) the compile waited for
      // a CPU past it: a wall-clock limit refused this. (Before, one sum of both stages' CPU time
      // was held to one stage's limit: stricter than the product, and a stage past the limit in
      // wall time was not shown.)
      expect(stages.compileCpuMs, measured).toBeLessThan(limitMs);
      expect(stages.checkCpuMs, measured).toBeLessThan(limitMs);
      starvedMs = stages.compileWallMs;
    }
    expect(starvedMs, `${measured}: not starved`).toBeGreaterThan(limitMs);
  }, 300_000);

  it("ends a stage whose thread does not run at ten times the limit in wall time", async () => {
    const pool = new SchemaCheckWorker({ createWorker: idleThreads(true) });
    const before = performance.now();
    expect(await pool.check(1, { type: "object" }, {}, 100)).toEqual({ kind: "timeout", stage: "compile" });
    // Not at the limit (the thread ran no CPU): at the wall-time bound.
    expect(performance.now() - before).toBeGreaterThanOrEqual(1_000);
  }, 60_000);
});

describe("schema check time limit without /proc", () => {
  it("counts wall time where the thread cannot say its CPU time", async () => {
    // A wall-time bound of 200 s: only the wall-time limit (200 ms) ends this within the test's time.
    const pool = new SchemaCheckWorker({ createWorker: idleThreads(false), wallLimitFactor: 1_000 });
    const before = performance.now();
    expect(await pool.check(1, { type: "object" }, {}, 200)).toEqual({ kind: "timeout", stage: "compile" });
    expect(performance.now() - before).toBeGreaterThanOrEqual(200);
  }, 60_000);
});
