import type { ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { spawnNode } from "../../support/child-entry.js";

const root = fileURLToPath(new URL("../../..", import.meta.url));
const script = fileURLToPath(new URL("../fixtures/job-worker.mjs", import.meta.url));

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

/** Starts a worker process and resolves once its BullMQ workers are ready. */
export async function startJobWorker(port: number, prefix: string, label: string): Promise<JobWorker> {
  const child = spawnNode(script, ["127.0.0.1", String(port), prefix, label], {
    cwd: root,
    stdio: ["ignore", "pipe", "inherit"],
  });
  const firings: Firing[] = [];
  let ready: () => void = () => undefined;
  const isReady = new Promise<void>((resolve) => {
    ready = resolve;
  });
  createInterface({ input: child.stdout as NodeJS.ReadableStream }).on("line", (line) => {
    const event = JSON.parse(line) as Firing | { kind: "ready" };
    if (event.kind === "ready") ready();
    else firings.push(event as Firing);
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  await Promise.race([
    isReady,
    exited.then(() => {
      throw new Error(`worker ${label} exited before it was ready`);
    }),
  ]);
  return {
    label,
    child,
    firings,
    kill: async (signal = "SIGKILL") => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill(signal);
        await exited;
      }
    },
  };
}
