/**
 * A real `redis-server` for a test file: started on 127.0.0.1 on a free port, without persistence,
 * in a directory of its own, and stopped (killed) and its directory deleted after. Needs the
 * "redis" capability (test/support/capabilities.ts): call {@link useRedisServer} inside a
 * `describe.skipIf(redis.missing)(redis.label(...))` so a machine without redis-server skips the
 * suite loudly (and fails it under the strict flag).
 *
 * @example
 * ```ts
 * const redisCapability = capability("redis");
 * describe.skipIf(redisCapability.missing)(redisCapability.label("RedisRunStore"), () => {
 *   const redis = useRedisServer();
 *   it("saves", async () => {
 *     const store = new RedisRunStore({ redis: redis.client() });
 *   });
 * });
 * ```
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, Socket } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { Redis, type RedisOptions } from "ioredis";
import { afterAll, beforeAll } from "vitest";
import { compileShiftedClock } from "./shifted-clock.js";

/** How a test's server is started. */
export interface RedisServerOptions {
  /**
   * Ms the server's wall clock (`TIME`, expiries) is shifted by, positive: ahead (a preloaded
   * library, test/support/shifted-clock.c, compiled here: the suite needs the "cc" capability
   * besides "redis"). `clockShiftBeforeMinute` (test/support/shifted-clock.ts) picks one just before a
   * minute boundary. Unset: the machine's clock.
   */
  readonly clockShiftMs?: number;
}

/** A running server, which a fault-injection test may kill, restart, pause and resume. */
export interface RedisServer {
  readonly port: number;
  readonly url: string;
  /** The server's working directory (deleted by {@link RedisServer.stop}). */
  readonly dir: string;
  /** Kills it (`SIGKILL`: what it held is lost, like a crashed server) and waits for it to exit. */
  kill(): Promise<void>;
  /** Starts it again, empty, on the same port, and waits until it answers. */
  start(): Promise<void>;
  /** Stops it with `SIGSTOP`: connections stay open, nothing is answered (a hung server). */
  pause(): void;
  /** Lets a paused server run again (`SIGCONT`). */
  resume(): void;
  /** Kills it and deletes its directory (idempotent). */
  stop(): Promise<void>;
}

/** A free TCP port on 127.0.0.1 (the listener is closed before it is returned). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address !== null ? address.port : 0));
    });
  });
}

/** Whether a Redis server on 127.0.0.1:`port` answers PING within 500 ms. */
export async function answersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket();
    socket.setTimeout(500);
    socket.once("error", () => resolve(false));
    socket.once("timeout", () => {
      socket.destroy();
      resolve(false);
    });
    socket.connect(port, "127.0.0.1", () => socket.write("PING\r\n"));
    socket.once("data", (data) => {
      socket.destroy();
      resolve(data.toString().startsWith("+PONG"));
    });
  });
}

/** How long a server may take to answer after it was spawned (a loaded machine's worst case, not a wait). */
const START_TIMEOUT_MS = 10_000;

/**
 * Spawns redis-server on `port` in `dir` and resolves once it printed its ready line and answers
 * PING (the line is the event; the PING confirms it is this server that answers on the port).
 */
async function spawnServer(port: number, dir: string, env: NodeJS.ProcessEnv): Promise<ChildProcess> {
  const child = spawn(
    "redis-server",
    [
      "--port",
      String(port),
      "--bind",
      "127.0.0.1",
      "--dir",
      dir,
      "--save",
      "",
      "--appendonly",
      "no",
      "--protected-mode",
      "yes",
      // Its log goes to the pipe read below (the ready line); nothing is written to the directory.
      "--logfile",
      "",
    ],
    { stdio: ["ignore", "pipe", "pipe"], env },
  );
  let output = "";
  const ready = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`redis-server did not answer on port ${port} within ${START_TIMEOUT_MS} ms: ${output.slice(-500)}`)),
      START_TIMEOUT_MS,
    );
    const settle = (error?: Error) => {
      clearTimeout(timer);
      child.stdout?.off("data", onData);
      child.off("exit", onExit);
      child.off("error", onExit);
      if (error === undefined) resolve();
      else reject(error);
    };
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes("Ready to accept connections")) settle();
    };
    const onExit = (codeOrError: unknown) =>
      settle(new Error(`redis-server on port ${port} ended before it was ready (${String(codeOrError)}): ${output.slice(-500)}`));
    child.stdout?.on("data", onData);
    child.once("exit", onExit);
    child.once("error", onExit);
  });
  // Later log lines are read and dropped, so a full pipe never blocks the server.
  child.stderr?.resume();
  try {
    await ready;
    child.stdout?.resume();
    if (!(await answersPing(port))) throw new Error(`redis-server said it was ready but port ${port} does not answer PING`);
  } catch (error) {
    child.kill("SIGKILL");
    throw error;
  }
  return child;
}

/** Starts a server on a free port and waits until it answers. Prefer {@link useRedisServer} in a suite. */
export async function startRedisServer(options: RedisServerOptions = {}): Promise<RedisServer> {
  const port = await freePort();
  const dir = mkdtempSync(path.join(tmpdir(), "atc-redis-"));
  let env = process.env;
  let child: ChildProcess | undefined;
  const kill = () =>
    new Promise<void>((resolve) => {
      const running = child;
      if (running === undefined || running.exitCode !== null || running.signalCode !== null) return resolve();
      running.once("exit", () => resolve());
      running.kill("SIGCONT");
      running.kill("SIGKILL");
    });
  const start = async () => {
    child = await spawnServer(port, dir, env);
  };
  const signal = (name: NodeJS.Signals) => () => {
    child?.kill(name);
  };
  try {
    if (options.clockShiftMs !== undefined) {
      env = {
        ...process.env,
        LD_PRELOAD: compileShiftedClock(dir),
        ATC_CLOCK_SHIFT_MS: String(Math.round(options.clockShiftMs)),
      };
    }
    await start();
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    dir,
    kill,
    start,
    pause: signal("SIGSTOP"),
    resume: signal("SIGCONT"),
    stop: async () => {
      await kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** What {@link useRedisServer} gives a suite. */
export interface RedisSuite {
  /** The suite's server (started in `beforeAll`). */
  readonly server: RedisServer;
  /** Its `redis://127.0.0.1:<port>` URL. */
  readonly url: string;
  /** Its port. */
  readonly port: number;
  /** A new ioredis client of the server, disconnected after the suite. */
  client(options?: RedisOptions): Redis;
  /** ioredis/BullMQ connection options for the server. */
  connection(): { host: string; port: number; maxRetriesPerRequest: null };
  /**
   * Run after the suite in reverse order (failures ignored), before the clients are disconnected
   * and the server is stopped: close schedulers, queues and children here.
   */
  readonly closers: (() => Promise<unknown>)[];
}

/**
 * Registers `beforeAll`/`afterAll` hooks on the enclosing `describe` that start a real
 * redis-server (on a free port, answering before the first test) and, after the suite, even when
 * a test failed, resume it if a test paused it, run the closers, disconnect the clients, kill
 * the server and delete its directory.
 */
export function useRedisServer(options: RedisServerOptions = {}): RedisSuite {
  let server: RedisServer | undefined;
  const clients: Redis[] = [];
  const closers: (() => Promise<unknown>)[] = [];
  beforeAll(async () => {
    server = await startRedisServer(options);
  });
  afterAll(async () => {
    server?.resume();
    for (const close of closers.reverse()) await close().catch(() => undefined);
    closers.length = 0;
    for (const client of clients.splice(0)) client.disconnect();
    await server?.stop();
    server = undefined;
  });
  const started = (): RedisServer => {
    if (server === undefined) throw new Error("the Redis server starts in beforeAll (use it inside a test or hook)");
    return server;
  };
  return {
    get server() {
      return started();
    },
    get url() {
      return started().url;
    },
    get port() {
      return started().port;
    },
    client(options = {}) {
      const client = new Redis({ ...options, host: "127.0.0.1", port: started().port });
      clients.push(client);
      return client;
    },
    connection: () => ({ host: "127.0.0.1", port: started().port, maxRetriesPerRequest: null }),
    closers,
  };
}
