import type { Worker, WorkerOptions } from "node:worker_threads";
import type { JsonSchema } from "./json-schema.js";
import { nodeBuiltin } from "./node-builtin.js";
import type { SchemaCheckReply, SchemaCheckRequest, SchemaCheckStage } from "./schema-check-protocol.js";
import { CPU_LIMIT_WALL_FACTOR, cpuLimitRecheckMs, readThreadCpuMs } from "./thread-cpu-time.js";
import type { ValidationIssue } from "./validation-issue.js";

/** What one check came to. */
export type SchemaCheckResult =
  /** Checked: no issues, or the issues. */
  | { readonly kind: "checked"; readonly issues: readonly ValidationIssue[] | undefined }
  /** The stage ran past its time limit (CPU time, or the wall-time bound); the thread was stopped. */
  | { readonly kind: "timeout"; readonly stage: SchemaCheckStage }
  /** The stage made its thread reach its heap limit ({@link MAX_THREAD_HEAP_MB}); the thread was stopped. */
  | { readonly kind: "out_of_memory"; readonly stage: SchemaCheckStage; readonly heapLimitMb: number }
  /** Compiling or checking threw, or the thread died. */
  | { readonly kind: "failed"; readonly stage: SchemaCheckStage; readonly message: string }
  /** The thread could not be started. */
  | { readonly kind: "unavailable"; readonly message: string };

/** One check waiting for, or on, a thread. */
interface Job {
  readonly id: number;
  readonly schema: JsonSchema;
  readonly value: unknown;
  readonly timeoutMs: number;
  readonly resolve: (result: SchemaCheckResult) => void;
}

/** The job on a thread, which of its stages runs, and since when. */
interface Running {
  readonly job: Job;
  readonly number: number;
  stage: SchemaCheckStage;
  /** When the stage started: `performance.now()`, and its thread's CPU time (ms) if readable. */
  startWallMs: number;
  startCpuMs: number | undefined;
  timer: ReturnType<typeof setTimeout>;
}

/**
 * A stage's time limit counts the CPU time its thread runs (Linux, read from /proc); this many
 * times the limit in wall time ends a stage whatever its CPU time (see
 * {@link CPU_LIMIT_WALL_FACTOR}). Where no CPU time can be read (no /proc) the limit is wall time.
 */
export const WALL_LIMIT_FACTOR = CPU_LIMIT_WALL_FACTOR;

/** An idle thread is stopped after this long, and its compiled schemas with it. */
const IDLE_MS = 30_000;
/**
 * Most threads at once. A check that runs long (a hostile schema, up to its time limit) holds
 * one; the checks queued meanwhile go to another thread instead of waiting behind it.
 */
const MAX_THREADS = 3;
/**
 * The old-generation heap all threads together may grow to: a schema that makes the validator
 * allocate without end kills its thread, not the host, and three such schemas at once cost the
 * host this much, not three times it.
 */
const POOL_HEAP_MB = 512;
/** One thread's share of {@link POOL_HEAP_MB} (170 MB). */
const MAX_THREAD_HEAP_MB = Math.floor(POOL_HEAP_MB / MAX_THREADS);
/**
 * After a thread failed to start (or died before it was ready) while another ran, no further
 * thread is started beside a running one for this long: a host where extra threads cannot start
 * (too little memory, a thread limit) runs on the threads it has instead of retrying at every job.
 */
const EXTRA_START_BACKOFF_MS = 30_000;

// tsup defines it per output format; unset when the source runs directly (tests, tsx).
declare const __CATALOG_BUILD_FORMAT__: string | undefined;

/** Where the thread's code is, for this build; constant-folded so each build holds one branch. */
function threadEntry(): { readonly file: string | URL; readonly eval: boolean } {
  // The built thread sits beside the built root's files (dist/schema-check-thread.{js,cjs}).
  if (typeof __CATALOG_BUILD_FORMAT__ !== "undefined" && __CATALOG_BUILD_FORMAT__ === "cjs") {
    return { file: `${__dirname}/schema-check-thread.cjs`, eval: false };
  }
  if (typeof __CATALOG_BUILD_FORMAT__ !== "undefined") {
    return { file: new URL("./schema-check-thread.js", import.meta.url), eval: false };
  }
  // The source, run by tests through tsx: a worker's entry module loads before `--import tsx`
  // would apply, so a small script registers tsx and then imports the TypeScript entry.
  const source = new URL("./schema-check-thread.ts", import.meta.url).href;
  const script = `import("tsx/esm/api").then(({ register }) => { register(); return import(${JSON.stringify(source)}); });`;
  return { file: script, eval: true };
}

/** Starts one worker thread; throws when it cannot. */
export type CreateWorker = (file: string | URL, options: WorkerOptions) => Worker;

type WorkerConstructor = new (file: string | URL, options?: WorkerOptions) => Worker;

/** Node's `Worker`, loaded only when a thread starts (hosts without MCP servers never load it). */
function createNodeWorker(file: string | URL, options: WorkerOptions): Worker {
  const threads = nodeBuiltin<{ Worker: WorkerConstructor }>("worker_threads");
  if (threads === undefined) throw new Error("worker threads need Node.js 20.16 or later (process.getBuiltinModule)");
  const { Worker } = threads;
  return new Worker(file, options);
}

/** Options of a {@link SchemaCheckWorker}. */
export interface SchemaCheckWorkerOptions {
  /** How a thread is started; tests pass one that fails, to show the pool copes. Default: Node's `Worker`. */
  readonly createWorker?: CreateWorker;
  /** The wall-time bound of a stage, in multiples of its limit. Default: {@link WALL_LIMIT_FACTOR}. */
  readonly wallLimitFactor?: number;
}

/**
 * The untrusted JSON Schema checks of this copy of the package, on up to {@link MAX_THREADS}
 * worker threads: a job goes to a free thread (one that compiled its schema first); when every
 * started thread is busy, another is started, so one schema that runs to its time limit never
 * delays other tools' checks by that limit. Each stage (compile, check) runs under its job's time
 * limit counted from when a thread takes it, in the CPU time that thread runs where Linux's /proc
 * tells it, with {@link WALL_LIMIT_FACTOR} times the limit in wall time as the bound on a thread
 * that does not get to run (wall time only elsewhere); a job past its limit stops its thread (`terminate`,
 * which interrupts even a synchronous loop) and only that thread. Started by the first untrusted
 * check, so hosts without MCP servers never start one; a thread is referenced only while it runs
 * a job (or starts for a queued one), so it never keeps a process alive.
 */
export class SchemaCheckWorker {
  private readonly queue: Job[] = [];
  private readonly threads: SchemaCheckThread[] = [];
  private jobNumber = 0;
  /** Until when no thread starts beside a running one (see {@link EXTRA_START_BACKOFF_MS}). */
  private extraStartsBlockedUntil = 0;
  /** How each thread starts. */
  readonly createWorker: CreateWorker;
  /** See {@link SchemaCheckWorkerOptions.wallLimitFactor}. */
  readonly wallLimitFactor: number;

  constructor(options: SchemaCheckWorkerOptions = {}) {
    this.createWorker = options.createWorker ?? createNodeWorker;
    this.wallLimitFactor = options.wallLimitFactor ?? WALL_LIMIT_FACTOR;
  }

  /** Checks `value` against schema `id` (`schema`), compiling it first when its thread lacks it. */
  check(id: number, schema: JsonSchema, value: unknown, timeoutMs: number): Promise<SchemaCheckResult> {
    return new Promise((resolve) => {
      this.queue.push({ id, schema, value, timeoutMs, resolve });
      this.dispatch();
    });
  }

  /**
   * Starts a thread when none runs, so that it is ready (its validator loaded, which takes
   * 0.2-2 s of its own time) by the first check. Holds no reference: it never keeps a process alive.
   */
  prewarm(): void {
    if (this.threads.some((thread) => thread.started)) return;
    (this.threads[0] ?? this.addThread()).start();
    this.dispatch();
  }

  /** Hands queued jobs to free threads, starts another thread when all started ones are busy. */
  dispatch(): void {
    for (let job = this.queue[0]; job !== undefined; job = this.queue[0]) {
      const free = this.threads.filter((thread) => thread.free);
      const thread = free.find((candidate) => candidate.holds(job.id)) ?? free[0];
      if (thread === undefined) break;
      this.queue.shift();
      thread.run(job, ++this.jobNumber);
    }
    if (this.queue.length > 0 && !this.threads.some((thread) => thread.starting) && this.mayStartThread()) {
      const stopped = this.threads.find((thread) => !thread.started);
      (stopped ?? (this.threads.length < MAX_THREADS ? this.addThread() : undefined))?.start();
    }
    for (const thread of this.threads) thread.settle(this.queue.length > 0);
  }

  /** Puts a job back first in line (its thread dropped the schema and needs it again). */
  requeue(job: Job): void {
    this.queue.unshift(job);
  }

  /**
   * A thread could not start, or died before it was ready. While another thread runs (or is
   * starting), the queued jobs wait for it and no further thread starts beside it for a while;
   * only when none does can no job run here, and every queued job ends `unavailable`.
   */
  startFailed(error: unknown): void {
    if (this.threads.some((thread) => thread.started)) {
      this.extraStartsBlockedUntil = Date.now() + EXTRA_START_BACKOFF_MS;
      return;
    }
    const message = `The schema check thread could not start: ${error instanceof Error ? error.message : String(error)}`;
    for (const job of this.queue.splice(0)) job.resolve({ kind: "unavailable", message });
  }

  /** The first thread may always start (or fail its jobs); another only outside the backoff. */
  private mayStartThread(): boolean {
    return !this.threads.some((thread) => thread.started) || Date.now() >= this.extraStartsBlockedUntil;
  }

  private addThread(): SchemaCheckThread {
    const thread = new SchemaCheckThread(this);
    this.threads.push(thread);
    return thread;
  }
}

/** One worker thread of the pool: the schemas it compiled, the job it runs. */
class SchemaCheckThread {
  private thread: Worker | undefined;
  private ready = false;
  /** The thread's /proc stat file (its CPU time), from its ready message; `undefined` without /proc. */
  private statPath: string | undefined;
  /** Schemas sent to the current thread. */
  private readonly sent = new Set<number>();
  private running: Running | undefined;
  private idleTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly pool: SchemaCheckWorker) {}

  /** A thread runs (or is starting). */
  get started(): boolean {
    return this.thread !== undefined;
  }

  /** Started but not ready yet. */
  get starting(): boolean {
    return this.thread !== undefined && !this.ready;
  }

  /** Ready and without a job. */
  get free(): boolean {
    return this.ready && this.running === undefined;
  }

  /** The thread has compiled schema `id`. */
  holds(id: number): boolean {
    return this.sent.has(id);
  }

  /** Referenced while it runs a job or starts for queued ones; an idle one is stopped after a while. */
  settle(jobsWaiting: boolean): void {
    const thread = this.thread;
    if (thread === undefined) return;
    if (this.running !== undefined || (jobsWaiting && !this.ready)) {
      clearTimeout(this.idleTimer);
      this.idleTimer = undefined;
      thread.ref();
      return;
    }
    thread.unref();
    if (this.idleTimer !== undefined) return;
    this.idleTimer = setTimeout(() => {
      this.idleTimer = undefined;
      this.stop();
    }, IDLE_MS);
    this.idleTimer.unref();
  }

  run(job: Job, number: number): void {
    const thread = this.thread as Worker;
    const sendSchema = !this.sent.has(job.id);
    this.sent.add(job.id);
    this.running = {
      job,
      number,
      stage: sendSchema ? "compile" : "check",
      startWallMs: performance.now(),
      startCpuMs: this.cpuMs(),
      timer: setTimeout(() => this.expire(), job.timeoutMs),
    };
    const request: SchemaCheckRequest = {
      job: number,
      id: job.id,
      schema: sendSchema ? job.schema : undefined,
      value: job.value,
    };
    thread.postMessage(request);
  }

  start(): void {
    const entry = threadEntry();
    let thread: Worker;
    try {
      thread = this.pool.createWorker(entry.file, {
        eval: entry.eval,
        // Not the host's own flags (a worker inherits them): `--input-type`, `--import` of a
        // loader, `--inspect` make no sense for this thread, and some stop it from starting.
        execArgv: [],
        resourceLimits: { maxOldGenerationSizeMb: MAX_THREAD_HEAP_MB },
      });
    } catch (error) {
      this.pool.startFailed(error);
      return;
    }
    // Unreferenced until `settle` says a job waits for it.
    thread.unref();
    this.thread = thread;
    this.ready = false;
    this.statPath = undefined;
    this.sent.clear();
    thread.on("message", (reply: SchemaCheckReply) => {
      if (this.thread === thread) this.receive(reply);
    });
    thread.on("error", (error: Error) => {
      if (this.thread === thread) this.died(error);
    });
    thread.on("exit", (code) => {
      if (this.thread === thread) this.died(new Error(`the schema check thread exited with code ${code}`));
    });
  }

  private receive(reply: SchemaCheckReply): void {
    if (reply.kind === "ready") {
      this.ready = true;
      this.statPath = reply.statPath;
      this.pool.dispatch();
      return;
    }
    const running = this.running;
    if (running === undefined || reply.job !== running.number) return;
    if (reply.kind === "compiled") {
      // Checking gets its own time limit, from the thread's CPU time as compiling ended.
      running.stage = "check";
      running.startWallMs = performance.now();
      running.startCpuMs = this.statPath === undefined ? undefined : (reply.cpuMs ?? this.cpuMs());
      clearTimeout(running.timer);
      running.timer = setTimeout(() => this.expire(), running.job.timeoutMs);
      return;
    }
    if (reply.kind === "unknown") {
      // The thread dropped the schema: send it again, first in line.
      this.sent.delete(running.job.id);
      this.pool.requeue(running.job);
      this.finish(undefined);
      return;
    }
    if (reply.kind === "failed" && reply.stage === "compile") this.sent.delete(running.job.id);
    this.finish(reply.kind === "checked" ? { kind: "checked", issues: reply.issues } : reply);
  }

  private finish(result: SchemaCheckResult | undefined): void {
    const running = this.running;
    if (running === undefined) return;
    clearTimeout(running.timer);
    this.running = undefined;
    if (result !== undefined) running.job.resolve(result);
    this.pool.dispatch();
  }

  /** The thread's CPU time now, in ms; `undefined` without /proc (or once the thread ended). */
  private cpuMs(): number | undefined {
    return this.statPath === undefined ? undefined : readThreadCpuMs(this.statPath);
  }

  /**
   * The stage's limit has passed in wall time: it is over when its thread ran that long (or no
   * CPU time can be read), or when the wall-time bound passed too; else look again once the
   * CPU time left could have run. An answer the thread already sent arrives meanwhile: a finished
   * thread runs no more.
   */
  private expire(): void {
    const running = this.running;
    if (running === undefined) return;
    const recheckMs = cpuLimitRecheckMs(
      {
        limitMs: running.job.timeoutMs,
        wallFactor: this.pool.wallLimitFactor,
        startWallMs: running.startWallMs,
        startCpuMs: running.startCpuMs,
      },
      this.cpuMs(),
    );
    if (recheckMs === 0) {
      this.timeout(running);
      return;
    }
    running.timer = setTimeout(() => this.expire(), recheckMs);
  }

  private timeout(running: Running): void {
    this.stop();
    this.finish({ kind: "timeout", stage: running.stage });
  }

  /** The thread failed (out of memory, an uncaught error) or exited on its own. */
  private died(error: Error): void {
    const running = this.running;
    const wasReady = this.ready;
    this.stop();
    if (running !== undefined) this.finish(diedResult(running.stage, error));
    else if (!wasReady) {
      this.pool.startFailed(error);
      // Settles the threads still running for the jobs left waiting on them.
      this.pool.dispatch();
    }
  }

  private stop(): void {
    const thread = this.thread;
    this.thread = undefined;
    this.ready = false;
    this.sent.clear();
    clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
    void thread?.terminate();
  }
}

/**
 * What a job comes to when its thread died under it: out of memory is told apart (the job made
 * the validator allocate past the thread's heap limit), so that the model hears what to change.
 */
function diedResult(stage: SchemaCheckStage, error: Error): SchemaCheckResult {
  if ((error as { code?: unknown }).code === "ERR_WORKER_OUT_OF_MEMORY") {
    return { kind: "out_of_memory", stage, heapLimitMb: MAX_THREAD_HEAP_MB };
  }
  return { kind: "failed", stage, message: error.message };
}

let shared: SchemaCheckWorker | undefined;

/** The one schema check worker of this copy of the package, created on first use. */
export function schemaCheckWorker(): SchemaCheckWorker {
  shared ??= new SchemaCheckWorker();
  return shared;
}
