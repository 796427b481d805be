// Red team round 37: a run's stored state written by someone else. A store entry under one run's
// id that holds another run's state (a key copied by hand, a migration script, a process of
// another version, anyone who can write the store) opened as that other run, and its saves and
// call claims went to the other run's key: when the revisions lined up, the other run's newer
// state was overwritten by the copy (its later activations lost, silently).
import { ConfigurationError, createRegistry, defineTool, InMemoryRunStore, openRun, type RunState } from "agent-tool-catalog";
import { RedisRunStore } from "agent-tool-catalog/redis";
import { describe, expect, it } from "vitest";
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
const deferred = (name: string) =>
  defineTool({ name, description: `The ${name} lookup.`, tier: "deferred", inputSchema: z.object({}), handler: () => name });

const registry = () => createRegistry({ tools: [echo, deferred("tool_one"), deferred("tool_two")] });
const activated = (state: RunState | undefined) => [...(state?.activation.activated ?? [])].sort();

/**
 * Run B activates `tool_one`; its state is then written under A's key at B's next revision (as a
 * hostile or buggy writer would); B goes on to activate `tool_two`. Then A is opened and called.
 */
async function copyThenOpen(store: {
  load(id: string): Promise<{ state: RunState; revision: number } | undefined>;
  plant(id: string, state: RunState, revision: number): Promise<void>;
  runStore: InMemoryRunStore<RunState> | RedisRunStore<RunState>;
}) {
  const reg = registry();
  const b = await openRun(reg, { store: store.runStore, runId: "B" });
  await b.call("find_tool", { query: "select:tool_one" });
  const copied = await store.load("B");
  if (copied === undefined) throw new Error("B was not saved");
  await store.plant("A", copied.state, copied.revision + 1);
  await b.call("find_tool", { query: "select:tool_two" });
  expect(activated((await store.load("B"))?.state)).toEqual(["tool_one", "tool_two"]);
  const bRevision = (await store.load("B"))?.revision;

  const opened = await openRun(reg, { store: store.runStore, runId: "A" }).then(
    async (run) => {
      const diagnostics: string[] = [];
      run.events.on("run.diagnostic", (event) => diagnostics.push(event.kind));
      const result = await run.call("echo", { text: "from A" });
      return { id: run.id, result, diagnostics };
    },
    (error: unknown) => error,
  );
  // B's newer state is intact, whatever happened to A.
  const bAfter = await store.load("B");
  return { opened, bAfter, bRevision };
}

async function honestControl(runStore: InMemoryRunStore<RunState> | RedisRunStore<RunState>) {
  const reg = registry();
  const a = await openRun(reg, { store: runStore, runId: "honest" });
  await a.call("find_tool", { query: "select:tool_two" });
  const again = await openRun(reg, { store: runStore, runId: "honest" });
  expect(again.id).toBe("honest");
  expect(await again.call("tool_two", {})).toMatchObject({ ok: true, output: "tool_two" });
  const stored = await runStore.load("honest");
  expect(stored?.revision).toBe(2);
  expect(activated(stored?.state)).toEqual(["tool_two"]);
}

function expectRefused(outcome: Awaited<ReturnType<typeof copyThenOpen>>) {
  expect(outcome.opened).toBeInstanceOf(ConfigurationError);
  expect(outcome.opened).toMatchObject({ code: "invalid_run_state" });
  expect(String((outcome.opened as Error).message)).toMatch(/"A".*"B"|"B".*"A"/);
  expect(outcome.bAfter?.revision).toBe(outcome.bRevision);
  expect(activated(outcome.bAfter?.state)).toEqual(["tool_one", "tool_two"]);
}

describe("a store entry holding another run's state", () => {
  it("InMemoryRunStore: openRun refuses it (invalid_run_state) and the other run keeps its newer state", async () => {
    const runStore = new InMemoryRunStore<RunState>();
    const outcome = await copyThenOpen({
      runStore,
      load: (id) => runStore.load(id),
      // The in-memory store has no side door: save the copy until its revision is the planted one.
      plant: async (id, state, revision) => {
        let current = (await runStore.load(id))?.revision ?? 0;
        while (current < revision) current = await runStore.save(id, state);
      },
    });
    expectRefused(outcome);
  });

  it("control: a run's own state opens as that run, and its saves land under its id", async () => {
    await honestControl(new InMemoryRunStore<RunState>());
  });
});

const redisCapability = capability("redis");
describe.skipIf(redisCapability.missing)(redisCapability.label("RedisRunStore: a key holding another run's state"), () => {
  const server = useRedisServer();

  it("openRun refuses it (invalid_run_state) and the other run keeps its newer state", async () => {
    const redis = server.client();
    const runStore = new RedisRunStore<RunState>({ redis, prefix: "r37" });
    const outcome = await copyThenOpen({
      runStore,
      load: (id) => runStore.load(id),
      // Written straight into Redis, as another program (or another version) would.
      plant: async (id, state, revision) => {
        await redis.hset(`r37:run:${id}`, "state", JSON.stringify(state), "revision", String(revision));
      },
    });
    expectRefused(outcome);
  });

  it("control: a run's own state opens as that run", async () => {
    await honestControl(new RedisRunStore<RunState>({ redis: server.client(), prefix: "r37c" }));
  });
});
