/**
 * RedisSubagentManager's `maxRunning` holds over every process sharing the prefix, as
 * InProcessSubagentManager's holds in one: two real node processes against a real redis-server,
 * limit 2. Before the option, each process could run as many as its local manager allowed (8
 * each by default), with no fleet-wide count at all. A killed process's slots come back once its
 * lease runs out; a subagent's end gives its slot back at once.
 */
import type { ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { capability } from "../support/capabilities.js";
import { spawnNode } from "../support/child-entry.js";
import { useRedisServer } from "../support/redis-server.js";

const redisCapability = capability("redis");
const root = fileURLToPath(new URL("../..", import.meta.url));
const script = fileURLToPath(new URL("./fixtures/subagent-limit-host.mjs", import.meta.url));
const LEASE_MS = 600;

/** Every host started, killed after the suite. */
const hosts: ChildProcess[] = [];

interface Host {
  readonly child: ChildProcess;
  /** Sends a command and resolves with its one-line JSON answer. */
  ask(command: string): Promise<Record<string, string>>;
}

async function startHost(url: string, prefix: string, maxRunning: number): Promise<Host> {
  const child = spawnNode(script, [url, prefix, String(maxRunning), String(LEASE_MS)], {
    cwd: root,
    stdio: ["pipe", "pipe", "inherit"],
  });
  hosts.push(child);
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream })[Symbol.asyncIterator]();
  const next = async (): Promise<Record<string, string>> => {
    const line = await lines.next();
    if (line.done === true) throw new Error("the subagent host ended early");
    return JSON.parse(line.value) as Record<string, string>;
  };
  expect(await next()).toEqual({ ready: true });
  // Commands are answered in order: one at a time.
  let queue: Promise<unknown> = Promise.resolve();
  const ask = (command: string) => {
    const answer = queue.then(() => {
      child.stdin?.write(`${command}\n`);
      return next();
    });
    queue = answer.catch(() => undefined);
    return answer;
  };
  return { child, ask };
}

const exited = (child: ChildProcess) =>
  child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise<void>((resolve) => child.once("exit", () => resolve()));

describe.skipIf(redisCapability.missing)(redisCapability.label("RedisSubagentManager maxRunning across processes"), () => {
  const server = useRedisServer();
  afterAll(async () => {
    for (const child of hosts.splice(0)) {
      child.kill("SIGKILL");
      await exited(child);
    }
  });

  it("refuses a third subagent in either process; a killed process's slot and a cancelled subagent's come back", async () => {
    const a = await startHost(server.url, "limit", 2);
    const b = await startHost(server.url, "limit", 2);
    const first = await a.ask("start");
    expect(first).toMatchObject({ started: expect.any(String) });
    const second = await b.ask("start");
    expect(second).toMatchObject({ started: expect.any(String) });
    // Full over both processes: each refuses as InProcessSubagentManager does.
    for (const host of [a, b]) {
      expect(await host.ask("start")).toEqual({
        refused: "too_many_subagents",
        message: "2 subagents are running already (the limit is 2).",
      });
    }
    // A killed process never gives its slot back itself: it comes back with its lease.
    a.child.kill("SIGKILL");
    await exited(a.child);
    let third: Record<string, string> = {};
    for (let attempt = 0; attempt < 200; attempt++) {
      third = await b.ask("start");
      if (third.started !== undefined) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(third).toMatchObject({ started: expect.any(String) });
    expect(await b.ask("start")).toMatchObject({ refused: "too_many_subagents" });
    // A subagent's end gives its slot back at once (no lease to wait for): the next start is let in.
    expect(await b.ask(`cancel ${second.started}`)).toEqual({ cancelled: second.started });
    let fourth: Record<string, string> = {};
    for (let attempt = 0; attempt < 50; attempt++) {
      fourth = await b.ask("start");
      if (fourth.started !== undefined) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(fourth).toMatchObject({ started: expect.any(String) });
  }, 60_000);
});
