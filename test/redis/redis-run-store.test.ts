import {
  ConfigurationError,
  createRegistry,
  InMemoryRunStore,
  openRun,
  type RunState,
  type RunStore,
  RunStoreConflictError,
} from "agent-tool-catalog";
import { RedisRunStore } from "agent-tool-catalog/redis";
import type { Redis } from "ioredis";
import { describe, expect, it } from "vitest";
import { capability } from "../support/capabilities.js";
import { useRedisServer } from "../support/redis-server.js";

const redisCapability = capability("redis");

/** The same contract, for every store. */
function contract(name: string, makeStore: () => RunStore<unknown>) {
  describe(name, () => {
    it("saves, loads, counts revisions and deletes", async () => {
      const store = makeStore();
      expect(await store.load("r1")).toBeUndefined();
      expect(await store.save("r1", { a: 1 })).toBe(1);
      expect(await store.save("r1", { a: 2 }, { expectedRevision: 1 })).toBe(2);
      expect(await store.load("r1")).toEqual({ state: { a: 2 }, revision: 2 });
      expect(await store.delete("r1")).toBe(true);
      expect(await store.delete("r1")).toBe(false);
      expect(await store.load("r1")).toBeUndefined();
    });

    it("optimistic concurrency: of 20 concurrent saves at one revision exactly one wins", async () => {
      const store = makeStore();
      await store.save("r2", { n: 0 });
      const outcomes = await Promise.allSettled(
        Array.from({ length: 20 }, (_, n) => store.save("r2", { n }, { expectedRevision: 1 })),
      );
      expect(outcomes.filter((outcome) => outcome.status === "fulfilled")).toHaveLength(1);
      const failures = outcomes.filter((outcome): outcome is PromiseRejectedResult => outcome.status === "rejected");
      expect(failures).toHaveLength(19);
      for (const failure of failures) {
        expect(failure.reason).toBeInstanceOf(RunStoreConflictError);
        expect(failure.reason).toMatchObject({ code: "run_store_conflict", expectedRevision: 1, actualRevision: 2 });
      }
      expect((await store.load("r2"))?.revision).toBe(2);
    });

    it("expectedRevision 0 means: only if nothing is saved", async () => {
      const store = makeStore();
      expect(await store.save("r3", {}, { expectedRevision: 0 })).toBe(1);
      await expect(store.save("r3", {}, { expectedRevision: 0 })).rejects.toBeInstanceOf(RunStoreConflictError);
    });

    it("a TTL drops the state", async () => {
      const store = makeStore();
      await store.save("r4", { x: true }, { ttlMs: 150 });
      expect(await store.load("r4")).toBeDefined();
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await store.load("r4")).toBeUndefined();
    });

    it("ttlMs Infinity: never expires (an earlier TTL is cleared)", async () => {
      const store = makeStore();
      await store.save("r5", { x: true }, { ttlMs: 150 });
      await store.save("r5", { x: false }, { ttlMs: Number.POSITIVE_INFINITY });
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect((await store.load("r5"))?.state).toEqual({ x: false });
    });
  });
}

contract("InMemoryRunStore", () => new InMemoryRunStore<unknown>());

describe.skipIf(redisCapability.missing)(redisCapability.label("RedisRunStore on a real redis-server"), () => {
  const server = useRedisServer();
  const clients: Redis[] = [];
  let prefix = 0;
  const makeStore = () => {
    // A client per store: the concurrency test then races separate connections, as processes would.
    const client = server.client();
    clients.push(client);
    return new RedisRunStore<unknown>({ redis: client, prefix: `s${++prefix}` });
  };
  contract("RedisRunStore", makeStore);

  it("a stored value this store did not write is invalid_run_state from openRun, not a SyntaxError or a NaN revision; control: a valid one opens", async () => {
    const store = makeStore();
    const client = clients[clients.length - 1] as Redis;
    const registry = createRegistry();
    await store.save("good", registry.createRun({ runId: "good" }).toJSON());
    const saved = await client.hget(`s${prefix}:run:good`, "state");
    await client.hset(`s${prefix}:run:cut`, "state", (saved as string).slice(0, 20), "revision", "3");
    await client.hset(`s${prefix}:run:nan`, "state", saved as string, "revision", "three");
    for (const runId of ["cut", "nan"]) {
      const opened = openRun(registry, { store: store as RunStore<RunState>, runId });
      await expect(opened).rejects.toBeInstanceOf(ConfigurationError);
      await expect(opened).rejects.toMatchObject({ code: "invalid_run_state" });
    }
    const good = await openRun(registry, { store: store as RunStore<RunState>, runId: "good" });
    expect(good.id).toBe("good");
  });

  it("stores across connections: what one client saves another loads", async () => {
    const a = makeStore();
    const b = new RedisRunStore<unknown>({ redis: clients[clients.length - 1] as Redis, prefix: `s${prefix}` });
    await a.save("shared", { activation: ["weather"] });
    expect(await b.load("shared")).toEqual({ state: { activation: ["weather"] }, revision: 1 });
  });
});
