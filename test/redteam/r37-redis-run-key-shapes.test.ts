/**
 * Red team round 37: a run's Redis key written by another program or cut by hand, in shapes
 * RedisRunStore never writes (it writes `state` and `revision` together, in one script):
 *
 * - a key of another type (a string, a list): `openRun` rejected with Redis's bare `ReplyError`
 *   (`WRONGTYPE`), where the README promises `ConfigurationError` `invalid_run_state` for a key
 *   holding something the store did not write;
 * - a hash holding a revision but no state: read as "nothing stored", so the run opened fresh and
 *   every save after every call then failed (`expected revision 0, found 3`), the very "run that
 *   opens and then fails every save" the README rules out;
 * - a hash holding a state but no revision: opened fresh too, and the first save wrote over it.
 *
 * Each is now `invalid_run_state`, and the key is left as it was. Control: the store's own key
 * opens, a missing key starts the run fresh, and both save.
 */
import { ConfigurationError, createRegistry, defineTool, openRun, type RunState } from "agent-tool-catalog";
import { RedisRunStore } from "agent-tool-catalog/redis";
import type { Redis } from "ioredis";
import { beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { capability } from "../support/capabilities.js";
import { useRedisServer } from "../support/redis-server.js";

const echo = defineTool({
  name: "echo",
  description: "Echoes.",
  tier: "core",
  inputSchema: z.object({ text: z.string() }),
  handler: ({ text }) => text,
});

const SHAPES: readonly { id: string; label: string; plant: (redis: Redis, key: string) => Promise<unknown> }[] = [
  { id: "string", label: "a string key", plant: (redis, key) => redis.set(key, "garbage") },
  { id: "list", label: "a list key", plant: (redis, key) => redis.rpush(key, "a", "b") },
  { id: "set", label: "a set key", plant: (redis, key) => redis.sadd(key, "a") },
  { id: "revision-only", label: "a hash with a revision and no state", plant: (redis, key) => redis.hset(key, "revision", "3") },
  {
    id: "state-only",
    label: "a hash with a state and no revision",
    plant: (redis, key) =>
      redis.hset(
        key,
        "state",
        JSON.stringify({ version: 1, runId: "state-only", activation: { version: 1, activated: ["kept"] } }),
      ),
  },
];

const redisCapability = capability("redis");
describe.skipIf(redisCapability.missing)(redisCapability.label("RedisRunStore: a run key of a shape it never writes"), () => {
  const server = useRedisServer();
  let redis: Redis;
  beforeAll(() => {
    redis = server.client();
  });

  for (const shape of SHAPES) {
    it(`${shape.label}: openRun rejects with invalid_run_state and the key is left as it was`, async () => {
      const store = new RedisRunStore<RunState>({ redis, prefix: "r37k" });
      const key = `r37k:run:${shape.id}`;
      await shape.plant(redis, key);
      const before = await redis.dump(key);
      const outcome = await openRun(createRegistry({ tools: [echo] }), { store, runId: shape.id }).then(
        async (run) => {
          const diagnostics: string[] = [];
          run.events.on("run.diagnostic", (event) => diagnostics.push(event.message));
          return { opened: await run.call("echo", { text: "x" }), diagnostics };
        },
        (error: unknown) => error,
      );
      expect(outcome).toBeInstanceOf(ConfigurationError);
      expect(outcome).toMatchObject({ code: "invalid_run_state", data: { field: "state", runId: shape.id } });
      expect(await redis.dump(key)).toEqual(before);
    });
  }

  it("control: the store's own key opens and saves; a missing key starts the run fresh", async () => {
    const store = new RedisRunStore<RunState>({ redis, prefix: "r37k" });
    const registry = createRegistry({ tools: [echo] });
    const fresh = await openRun(registry, { store, runId: "own" });
    const seen: string[] = [];
    fresh.events.on("run.diagnostic", (event) => seen.push(event.kind));
    expect(await fresh.call("echo", { text: "one" })).toMatchObject({ ok: true, output: "one" });
    expect((await store.load("own"))?.revision).toBe(1);
    const again = await openRun(registry, { store, runId: "own" });
    again.events.on("run.diagnostic", (event) => seen.push(event.kind));
    expect(await again.call("echo", { text: "two" })).toMatchObject({ ok: true, output: "two" });
    expect((await store.load("own"))?.revision).toBe(2);
    expect(seen).toEqual([]);
  });
});
