import type { ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import type { CronJob, CronJobDetails, CronJobSpec } from "agent-tool-catalog/host";
import { spawnNode } from "../../support/child-entry.js";

const root = fileURLToPath(new URL("../../..", import.meta.url));
const script = fileURLToPath(new URL("../fixtures/cron-client.mjs", import.meta.url));
const skewedClock = fileURLToPath(new URL("../fixtures/skewed-clock.mjs", import.meta.url));

/** The `BullMqCronScheduler` methods a cron-client process (test/redis/fixtures/cron-client.mjs) answers. */
export interface CronClientProcess {
  readonly child: ChildProcess;
  create(spec: CronJobSpec): Promise<CronJob>;
  get(id: string, executions: number): Promise<CronJobDetails | undefined>;
  list(options?: { includeDeleted?: boolean }): Promise<CronJob[]>;
  pause(id: string): Promise<CronJob>;
  resume(id: string): Promise<CronJob>;
  delete(id: string): Promise<CronJob>;
  /** Ends its stdin (it closes its scheduler and exits) and waits for it to exit. */
  close(): Promise<void>;
}

/** A started cron-client process that has loaded its modules and waits to be told where Redis is. */
export interface LoadedCronClient {
  /** Connects it to 127.0.0.1:`port` with its wall clock `clockSkewMs` off; resolves once its scheduler is made. */
  connect(port: number, clockSkewMs: number): Promise<CronClientProcess>;
  /** Kills it (SIGKILL) and waits for it to exit. */
  kill(): Promise<void>;
}

/** Starts a cron-client process for `prefix` and resolves once its modules are loaded. */
export async function loadCronClient(prefix: string): Promise<LoadedCronClient> {
  const child = spawnNode(script, ["127.0.0.1", "-", prefix], {
    imports: [skewedClock],
    cwd: root,
    stdio: ["pipe", "pipe", "inherit"],
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream })[Symbol.asyncIterator]();
  const next = async (): Promise<Record<string, unknown>> => {
    const line = await lines.next();
    if (line.done === true) throw new Error("cron-client.mjs ended without an answer");
    return JSON.parse(line.value) as Record<string, unknown>;
  };
  const kill = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGKILL");
      await exited;
    }
  };
  const loaded = await next();
  if (loaded.loaded !== true) throw new Error(`cron-client.mjs said ${JSON.stringify(loaded)} instead of loaded`);
  // One call at a time: answers come in order, so each call waits for the one before.
  let queue: Promise<unknown> = Promise.resolve();
  const call = <T>(method: string, ...args: unknown[]): Promise<T> => {
    const answer = queue.then(async () => {
      child.stdin?.write(`${JSON.stringify({ method, args })}\n`);
      const reply = await next();
      if ("error" in reply) {
        const { code, message } = reply.error as { code?: string; message: string };
        throw Object.assign(new Error(message), { code });
      }
      return reply.value as T;
    });
    queue = answer.catch(() => undefined);
    return answer;
  };
  return {
    kill,
    connect: async (port, clockSkewMs) => {
      child.stdin?.write(`${JSON.stringify({ port, clockSkewMs })}\n`);
      const ready = await next();
      if (ready.ready !== true) throw new Error(`cron-client.mjs said ${JSON.stringify(ready)} instead of ready`);
      return {
        child,
        create: (spec) => call("create", spec),
        get: async (id, executions) => (await call<CronJobDetails | null>("get", id, executions)) ?? undefined,
        list: (options) => call("list", options ?? {}),
        pause: (id) => call("pause", id),
        resume: (id) => call("resume", id),
        delete: (id) => call("delete", id),
        close: async () => {
          child.stdin?.end();
          await exited;
        },
      };
    },
  };
}
