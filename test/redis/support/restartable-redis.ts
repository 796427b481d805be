/**
 * A real `redis-server` that a fault-injection test can kill (`SIGKILL`, no persistence: what it
 * held is lost, like a crashed or replaced server) and start again on the same port.
 */

import { type ChildProcess, spawn } from "node:child_process";
import { afterAll, beforeAll } from "vitest";
import { answersPing, freePort } from "../../support/redis-server.js";

/** A server that can be killed and restarted on its port. */
export interface RestartableRedis {
  readonly port: number;
  readonly url: string;
  /** Kills the server and waits for it to exit. */
  kill(): Promise<void>;
  /** Starts it again (empty) on the same port and waits until it answers PING. */
  start(): Promise<void>;
  /** Stops it with `SIGSTOP`: connections stay open, nothing is answered (a hung server). */
  pause(): void;
  /** Lets a paused server run again (`SIGCONT`). */
  resume(): void;
}

/** Starts a server on a free port. */
export async function startRestartableRedis(): Promise<RestartableRedis> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const start = async () => {
    const started = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], {
      stdio: "ignore",
    });
    child = started;
    const deadline = Date.now() + 10_000;
    while (!(await answersPing(port))) {
      if (started.exitCode !== null || Date.now() > deadline) {
        started.kill("SIGKILL");
        throw new Error(`redis-server did not start on port ${port}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  const kill = () =>
    new Promise<void>((resolve) => {
      const running = child;
      if (running === undefined || running.exitCode !== null || running.signalCode !== null) return resolve();
      running.once("exit", () => resolve());
      running.kill("SIGKILL");
    });
  const signal = (name: NodeJS.Signals) => () => {
    child?.kill(name);
  };
  await start();
  return { port, url: `redis://127.0.0.1:${port}`, kill, start, pause: signal("SIGSTOP"), resume: signal("SIGCONT") };
}

/** What {@link useRestartableRedis} gives a suite. */
export interface RestartableRedisSuite {
  /** The suite's server (started in `beforeAll`). */
  readonly server: RestartableRedis;
  /** Closed in reverse order after the suite (failures ignored), before the server is killed. */
  readonly closers: (() => Promise<void>)[];
  /** ioredis/BullMQ options for the server. */
  connection(): { host: string; port: number; maxRetriesPerRequest: null };
}

/**
 * Starts a restartable server for the surrounding `describe` and, after it, resumes it if paused,
 * runs the closers and kills it.
 */
export function useRestartableRedis(): RestartableRedisSuite {
  let server: RestartableRedis | undefined;
  const closers: (() => Promise<void>)[] = [];
  beforeAll(async () => {
    server = await startRestartableRedis();
  });
  afterAll(async () => {
    server?.resume();
    for (const close of closers.reverse()) await close().catch(() => undefined);
    await server?.kill();
  });
  const suite: RestartableRedisSuite = {
    get server() {
      if (server === undefined) throw new Error("the Redis server starts in beforeAll");
      return server;
    },
    closers,
    connection: () => ({ host: "127.0.0.1", port: suite.server.port, maxRetriesPerRequest: null }),
  };
  return suite;
}
