import type { ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { spawnNode } from "../../support/child-entry.js";

const root = fileURLToPath(new URL("../../..", import.meta.url));
const script = fileURLToPath(new URL("../fixtures/job-worker.mjs", import.meta.url));
const skewedClock = fileURLToPath(new URL("../fixtures/skewed-clock.mjs", import.meta.url));

/** One firing a worker process reported. */
export interface Firing {
  readonly kind: "callback" | "cron";
  readonly id: string;
  readonly worker: string;
  readonly at: number;
  readonly dueAt?: number;
}

/** A real worker process (test/redis/fixtures/job-worker.mjs) and what it fired. */
export interface JobWorker {
  readonly label: string;
  readonly child: ChildProcess;
  readonly firings: Firing[];
  kill(signal?: NodeJS.Signals): Promise<void>;
}

/** A worker process that has loaded its modules and waits to be told where Redis is. */
export interface LoadedJobWorker {
  /** Connects it to 127.0.0.1:`port` with its wall clock `clockSkewMs` off; resolves once its BullMQ workers are ready. */
  connect(port: number, clockSkewMs: number): Promise<JobWorker>;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

function spawnWorker(port: number | "-", prefix: string, label: string) {
  const later = port === "-";
  const child = spawnNode(script, ["127.0.0.1", String(port), prefix, label], {
    ...(later ? { imports: [skewedClock] } : {}),
    cwd: root,
    stdio: [later ? "pipe" : "ignore", "pipe", "inherit"],
  });
  const firings: Firing[] = [];
  const waiters = new Map<string, () => void>();
  const reached = (kind: "loaded" | "ready") => new Promise<void>((resolve) => waiters.set(kind, resolve));
  const loaded = reached("loaded");
  const ready = reached("ready");
  createInterface({ input: child.stdout as NodeJS.ReadableStream }).on("line", (line) => {
    const event = JSON.parse(line) as Firing | { kind: "loaded" | "ready" };
    if (event.kind === "loaded" || event.kind === "ready") waiters.get(event.kind)?.();
    else firings.push(event as Firing);
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const before = (step: Promise<void>, what: string) =>
    Promise.race([
      step,
      exited.then(() => {
        throw new Error(`worker ${label} exited before it was ${what}`);
      }),
    ]);
  const kill = async (signal: NodeJS.Signals = "SIGKILL") => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill(signal);
      await exited;
    }
  };
  const worker: JobWorker = { label, child, firings, kill };
  return { worker, loaded: () => before(loaded, "loaded"), ready: () => before(ready, "ready") };
}

/** Starts a worker process and resolves once its BullMQ workers are ready. */
export async function startJobWorker(port: number, prefix: string, label: string): Promise<JobWorker> {
  const { worker, ready } = spawnWorker(port, prefix, label);
  await ready();
  return worker;
}

/**
 * Starts a worker process (with test/redis/fixtures/skewed-clock.mjs) and resolves once its
 * modules are loaded: {@link LoadedJobWorker.connect} then gives it its server and clock.
 */
export async function loadJobWorker(prefix: string, label: string): Promise<LoadedJobWorker> {
  const { worker, loaded, ready } = spawnWorker("-", prefix, label);
  await loaded();
  return {
    kill: worker.kill,
    connect: async (port, clockSkewMs) => {
      worker.child.stdin?.write(`${JSON.stringify({ port, clockSkewMs })}\n`);
      await ready();
      return worker;
    },
  };
}
