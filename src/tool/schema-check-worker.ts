import type { Worker, WorkerOptions } from "node:worker_threads";
import type { JsonSchema } from "./json-schema.js";
import type { SchemaCheckReply, SchemaCheckRequest, SchemaCheckStage } from "./schema-check-protocol.js";
import type { ValidationIssue } from "./validation-issue.js";

/** What one check came to. */
export type SchemaCheckResult =
  /** Checked: no issues, or the issues. */
  | { readonly kind: "checked"; readonly issues: readonly ValidationIssue[] | undefined }
  /** The stage ran past its time limit; the thread was stopped. */
  | { readonly kind: "timeout"; readonly stage: SchemaCheckStage }
  /** Compiling or checking threw, or the thread died (out of memory). */
  | { readonly kind: "failed"; readonly stage: SchemaCheckStage; readonly message: string }
  /** The thread could not be started. */
  | { readonly kind: "unavailable"; readonly message: string };

/** One check waiting for, or on, the thread. */
interface Job {
  readonly id: number;
  readonly schema: JsonSchema;
  readonly value: unknown;
  readonly timeoutMs: number;
  readonly resolve: (result: SchemaCheckResult) => void;
}

/** The job on the thread, and which of its stages runs. */
interface Running {
  readonly job: Job;
  readonly number: number;
  stage: SchemaCheckStage;
  timer: ReturnType<typeof setTimeout>;
}

/** An idle thread is stopped after this long, and its compiled schemas with it. */
const IDLE_MS = 30_000;
/** A schema that makes the validator allocate without end kills the thread, not the host. */
const MAX_THREAD_HEAP_MB = 512;

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

type WorkerConstructor = new (file: string | URL, options?: WorkerOptions) => Worker;

function workerConstructor(): WorkerConstructor | undefined {
  const getBuiltin = (globalThis as { process?: { getBuiltinModule?: (name: string) => unknown } }).process?.getBuiltinModule;
  if (typeof getBuiltin !== "function") return undefined;
  return (getBuiltin("worker_threads") as { Worker: WorkerConstructor }).Worker;
}

/**
 * The worker thread that compiles and checks untrusted JSON Schemas, one job at a time, each
 * stage (compile, check) under its job's time limit counted from when the thread takes it. A job
 * past its limit stops the thread (`terminate`, which interrupts even a synchronous loop); the
 * next job starts a new one. Started by the first untrusted check, so hosts without MCP servers
 * never start it; referenced only while a job runs, so it never keeps a process alive.
 */
export class SchemaCheckWorker {
  private thread: Worker | undefined;
  private ready = false;
  /** Schemas sent to the current thread. */
  private readonly sent = new Set<number>();
  private readonly queue: Job[] = [];
  private running: Running | undefined;
  private jobNumber = 0;
  private idleTimer: ReturnType<typeof setTimeout> | undefined;

  /** Checks `value` against schema `id` (`schema`), compiling it first when the thread lacks it. */
  check(id: number, schema: JsonSchema, value: unknown, timeoutMs: number): Promise<SchemaCheckResult> {
    return new Promise((resolve) => {
      this.queue.push({ id, schema, value, timeoutMs, resolve });
      this.next();
    });
  }

  /**
   * Starts the thread when none runs, so that it is ready (its validator loaded, which takes
   * 0.2-2 s of its own time) by the first check. Holds no reference: it never keeps a process alive.
   */
  prewarm(): void {
    if (this.thread !== undefined) return;
    this.start()?.unref();
  }

  private next(): void {
    if (this.running !== undefined) return;
    const job = this.queue[0];
    if (job === undefined) {
      this.idle();
      return;
    }
    clearTimeout(this.idleTimer);
    const thread = this.thread ?? this.start();
    if (thread === undefined) return;
    // A job waits on the thread: it must keep the process alive until the job is answered.
    thread.ref();
    if (!this.ready) return;
    this.queue.shift();
    const sendSchema = !this.sent.has(job.id);
    this.sent.add(job.id);
    const number = ++this.jobNumber;
    this.running = {
      job,
      number,
      stage: sendSchema ? "compile" : "check",
      timer: setTimeout(() => this.timeout(), job.timeoutMs),
    };
    const request: SchemaCheckRequest = {
      job: number,
      id: job.id,
      schema: sendSchema ? job.schema : undefined,
      value: job.value,
    };
    thread.postMessage(request);
  }

  private start(): Worker | undefined {
    const Worker = workerConstructor();
    const entry = threadEntry();
    let thread: Worker;
    try {
      if (Worker === undefined) throw new Error("worker threads need Node.js 20.16 or later (process.getBuiltinModule)");
      thread = new Worker(entry.file, {
        eval: entry.eval,
        // Not the host's own flags (a worker inherits them): `--input-type`, `--import` of a
        // loader, `--inspect` make no sense for this thread, and some stop it from starting.
        execArgv: [],
        resourceLimits: { maxOldGenerationSizeMb: MAX_THREAD_HEAP_MB },
      });
    } catch (error) {
      this.failQueued(error);
      return undefined;
    }
    this.thread = thread;
    this.ready = false;
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
    return thread;
  }

  private receive(reply: SchemaCheckReply): void {
    if (reply.kind === "ready") {
      this.ready = true;
      this.next();
      return;
    }
    const running = this.running;
    if (running === undefined || reply.job !== running.number) return;
    if (reply.kind === "compiled") {
      // Checking gets its own time limit.
      running.stage = "check";
      clearTimeout(running.timer);
      running.timer = setTimeout(() => this.timeout(), running.job.timeoutMs);
      return;
    }
    if (reply.kind === "unknown") {
      // The thread dropped the schema: send it again, first in line.
      this.sent.delete(running.job.id);
      this.queue.unshift(running.job);
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
    this.next();
  }

  private timeout(): void {
    const running = this.running;
    if (running === undefined) return;
    this.stop();
    this.finish({ kind: "timeout", stage: running.stage });
  }

  /** The thread failed (out of memory, an uncaught error) or exited on its own. */
  private died(error: Error): void {
    const running = this.running;
    const wasReady = this.ready;
    this.stop();
    if (running !== undefined) {
      this.finish({ kind: "failed", stage: running.stage, message: error.message });
    } else if (!wasReady) {
      this.failQueued(error);
    }
  }

  private failQueued(error: unknown): void {
    const message = `The schema check thread could not start: ${error instanceof Error ? error.message : String(error)}`;
    for (const job of this.queue.splice(0)) job.resolve({ kind: "unavailable", message });
  }

  private idle(): void {
    if (this.thread === undefined) return;
    this.thread.unref();
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => this.stop(), IDLE_MS);
    this.idleTimer.unref();
  }

  private stop(): void {
    const thread = this.thread;
    this.thread = undefined;
    this.ready = false;
    this.sent.clear();
    clearTimeout(this.idleTimer);
    void thread?.terminate();
  }
}

let shared: SchemaCheckWorker | undefined;

/** The one schema check worker of this copy of the package, created on first use. */
export function schemaCheckWorker(): SchemaCheckWorker {
  shared ??= new SchemaCheckWorker();
  return shared;
}
