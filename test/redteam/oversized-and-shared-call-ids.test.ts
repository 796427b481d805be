/**
 * Red team round 18: call ids had no length limit (a provider or host could send a 10 MB id, copied
 * into every result, event and saved approval), and one call id reaching two copies of a run that
 * share a store ran in both. Now an id over 512 characters is `invalid_call_id` (the tool not run,
 * the id cut in the result), and a host-given id is claimed in the run's store while its call
 * runs. The two-process case with a real Redis is `test/redis/shared-call-ids.test.ts`.
 */
import { createRegistry, defineTool, InMemoryRunStore, type RunState, type RunStore } from "agent-tool-catalog";
import { describe, expect, it } from "vitest";
import { z } from "zod";

function catalog() {
  const effects: string[] = [];
  const registry = createRegistry();
  registry.register(
    defineTool({
      name: "deploy",
      description: "Deploys.",
      inputSchema: z.object({ target: z.string() }),
      handler: async ({ target }) => {
        effects.push(target);
        await new Promise((resolve) => setTimeout(resolve, 100));
        return `deployed ${target}`;
      },
    }),
  );
  return { registry, effects };
}

describe("call ids over the bound", () => {
  it("a 10 MB id: invalid_call_id, the tool not run, the id cut in the result and the event", async () => {
    const { registry, effects } = catalog();
    const run = registry.createRun();
    const seen: string[] = [];
    run.events.on("tool.error", (event) => seen.push(event.callId));
    const result = await run.call("deploy", { target: "prod" }, { callId: "x".repeat(10_000_000) });
    expect(result).toMatchObject({ ok: false, error: { code: "invalid_call_id", hint: expect.stringContaining("short id") } });
    expect(result.callId.length).toBeLessThanOrEqual(513);
    expect(JSON.stringify(result).length).toBeLessThan(2_000);
    expect(seen[0]?.length).toBeLessThanOrEqual(513);
    expect(effects).toEqual([]);
  });

  it("control: an id of 512 characters runs", async () => {
    const { registry, effects } = catalog();
    const callId = "y".repeat(512);
    expect(await registry.createRun().call("deploy", { target: "a" }, { callId })).toMatchObject({ ok: true, callId });
    expect(effects).toEqual(["a"]);
  });
});

describe("one call id in two copies of a run sharing a store", () => {
  it("runs once; the other is duplicate_call_id; the id is free again once the call ended", async () => {
    const { registry, effects } = catalog();
    const store = new InMemoryRunStore();
    const one = registry.createRun({ runId: "conv", store });
    const two = registry.createRun({ runId: "conv", store });
    const results = await Promise.all([
      one.call("deploy", { target: "a" }, { callId: "call_0" }),
      two.call("deploy", { target: "b" }, { callId: "call_0" }),
    ]);
    expect(results.map((result) => (result.ok ? "ok" : result.error.code))).toEqual(["ok", "duplicate_call_id"]);
    expect(effects).toEqual(["a"]);
    // A later turn reusing the id (providers that number calls per response) runs.
    expect(await two.call("deploy", { target: "c" }, { callId: "call_0" })).toMatchObject({ ok: true });
    // Control: different ids in the two copies both run.
    const both = await Promise.all([
      one.call("deploy", { target: "d" }, { callId: "call_1" }),
      two.call("deploy", { target: "e" }, { callId: "call_2" }),
    ]);
    expect(both.every((result) => result.ok)).toBe(true);
    expect(effects).toEqual(["a", "c", "d", "e"]);
  });

  it("a store whose claim throws: the tool is not run, the model reads that it may retry; a store without claims runs as before", async () => {
    const { registry, effects } = catalog();
    const inner = new InMemoryRunStore();
    const failing: RunStore<RunState> = {
      load: (runId) => inner.load(runId),
      save: (runId, state, options) => inner.save(runId, state, options),
      delete: (runId) => inner.delete(runId),
      claimCall: () => {
        throw new Error("store down");
      },
    };
    const refused = await registry.createRun({ runId: "r", store: failing }).call("deploy", { target: "a" }, { callId: "c1" });
    expect(refused).toMatchObject({ ok: false, error: { code: "internal_error", message: expect.stringContaining("not run") } });
    expect(effects).toEqual([]);
    const plain: RunStore<RunState> = {
      load: (runId) => inner.load(runId),
      save: (runId, state, options) => inner.save(runId, state, options),
      delete: (runId) => inner.delete(runId),
    };
    expect(
      await registry.createRun({ runId: "r", store: plain }).call("deploy", { target: "b" }, { callId: "c1" }),
    ).toMatchObject({
      ok: true,
    });
  });
});
