import {
  ConfigurationError,
  createRegistry,
  createRunStorageKey,
  defineTool,
  InMemoryApprovalBroker,
  InMemoryRunStore,
  openRun,
  type RunState,
} from "agent-tool-catalog";
import { describe, expect, it } from "vitest";
import { z } from "zod";

const COUNTER = createRunStorageKey("test.counter", () => ({ n: 0 }), {
  save: (value) => value.n,
  load: (saved) => {
    if (typeof saved !== "number") throw new Error("bad");
    return { n: saved };
  },
});
const SCRATCH = createRunStorageKey("test.scratch", () => ({ n: 0 }));

function makeRegistry(approvals = new InMemoryApprovalBroker()) {
  const registry = createRegistry({ approvals });
  registry.register(
    defineTool({
      name: "count",
      description: "Counts calls in run state.",
      inputSchema: z.object({}),
      handler: (_input, ctx) => {
        ctx.storage.get(SCRATCH).n++;
        return String(++ctx.storage.get(COUNTER).n);
      },
    }),
  );
  for (const name of ["weather", "stocks", "news"]) {
    registry.register(
      defineTool({ name, description: `The ${name}.`, tier: "deferred", inputSchema: z.object({}), handler: () => name }),
    );
  }
  registry.register(
    defineTool({
      name: "deploy",
      description: "Deploys.",
      mutating: true,
      inputSchema: z.object({ target: z.string() }),
      handler: ({ target }) => `deployed ${target}`,
    }),
  );
  return registry;
}

describe("run state: everything a run needs to continue elsewhere", () => {
  it("round-trips activations, skill constraints, persisting tool state and the frozen index", async () => {
    const first = makeRegistry().createRun({ runId: "r1" });
    first.activate(["weather", "stocks"]);
    first.applySkillConstraint("reviewer", ["count", "weather", "stocks"]);
    await first.call("count", {});
    await first.call("count", {});
    const state = JSON.parse(JSON.stringify(first.toJSON())) as RunState;
    expect(state).toMatchObject({ version: 3, runId: "r1", storage: { "test.counter": 2 }, pendingApprovals: [] });
    expect(state.storage).not.toHaveProperty("test.scratch");
    expect(state.skills).toEqual([{ skill: "reviewer", allowedTools: ["count", "weather", "stocks"] }]);

    // Another registry (another process) continues it.
    const second = makeRegistry().createRun({ state });
    expect(second.id).toBe("r1");
    expect(second.activeSkills()).toEqual(["reviewer"]);
    expect(second.isVisible("weather")).toBe(true);
    expect(second.isVisible("deploy")).toBe(false); // the skill constraint came along
    expect(await second.call("count", {})).toMatchObject({ ok: true, output: "3" });
    // Positive control: a fresh run starts from zero and sees everything.
    const fresh = makeRegistry().createRun();
    expect(await fresh.call("count", {})).toMatchObject({ ok: true, output: "1" });
    expect(fresh.isVisible("deploy")).toBe(true);
  });

  it("reads version 1 states, and refuses malformed ones with the field at fault", () => {
    const registry = makeRegistry();
    const run = registry.createRun({ state: { version: 1, runId: "old", activation: { version: 1, activated: ["news"] } } });
    expect(run.id).toBe("old");
    expect(run.isVisible("news")).toBe(true);
    for (const bad of [null, { version: 4, runId: "x", activation: { version: 1, activated: [] } }, { version: 2, runId: "x" }]) {
      expect(() => registry.createRun({ state: bad as unknown as RunState })).toThrow(ConfigurationError);
    }
    expect(() => registry.createRun({ state: run.toJSON(), runId: "other" })).toThrow(/differs/);
    expect(() => registry.createRun({ state: run.toJSON(), activation: { version: 1, activated: [] } })).toThrow(/either/);
  });

  it("a run with a store saves after each call; a second process resuming the same revision cannot overwrite silently", async () => {
    const store = new InMemoryRunStore<RunState>();
    const a = await openRun(makeRegistry(), { store, runId: "conv" });
    await a.call("find_tool", { query: "weather" });
    a.activate(["news"]);
    await a.save();
    expect((await store.load("conv"))?.state.activation.activated).toEqual(expect.arrayContaining(["news"]));
    const revision = (await store.load("conv"))?.revision as number;

    // Two processes pick the run up at the same revision; the second to save loses, and says so.
    const b = await openRun(makeRegistry(), { store, runId: "conv" });
    const c = await openRun(makeRegistry(), { store, runId: "conv" });
    expect(b.isVisible("news")).toBe(true);
    expect(await b.call("count", {})).toMatchObject({ ok: true });
    expect((await store.load("conv"))?.revision).toBe(revision + 1);
    expect(await c.call("count", {})).toMatchObject({ ok: true });
    expect((await store.load("conv"))?.revision).toBe(revision + 1);
    expect(c.diagnostics().map((diagnostic) => diagnostic.kind)).toContain("state_save_failed");
    expect(b.diagnostics().map((diagnostic) => diagnostic.kind)).not.toContain("state_save_failed");
  });

  it("a call waiting for approval is in the saved state; the resumed run reports it denied after its deadline", async () => {
    const store = new InMemoryRunStore<RunState>();
    const broker = new InMemoryApprovalBroker({ timeoutMs: 60_000 });
    const waiting = await openRun(makeRegistry(broker), { store, runId: "appr", permissions: { approval: "destructive" } });
    const pendingCall = waiting.call("deploy", { target: "prod" }, { callId: "call-7" });
    await expect.poll(async () => (await store.load("appr"))?.state.pendingApprovals.length).toBe(1);
    const saved = (await store.load("appr"))?.state as RunState;
    expect(saved.pendingApprovals[0]).toMatchObject({ callId: "call-7", toolName: "deploy" });

    // Another process resumes while the request is still open: interrupted, not denied.
    const resumed = await openRun(makeRegistry(new InMemoryApprovalBroker()), { store, runId: "appr" });
    expect(resumed.interruptedCalls()).toHaveLength(1);
    expect(await resumed.settleInterrupted()).toMatchObject([
      { ok: false, callId: "call-7", error: { code: "call_interrupted" } },
    ]);
    // Past the deadline, it is a denial.
    const late = makeRegistry(new InMemoryApprovalBroker()).createRun({
      state: { ...saved, pendingApprovals: saved.pendingApprovals.map((pending) => ({ ...pending, expiresAt: Date.now() - 1 })) },
    });
    expect(await late.settleInterrupted()).toMatchObject([{ ok: false, error: { code: "approval_denied" } }]);

    for (const request of await broker.pending()) await broker.approve(request.id);
    expect(await pendingCall).toMatchObject({ ok: true });
    expect((await store.load("appr"))?.state.pendingApprovals).toEqual([]);
  });

  it("compact keeps all, none, or what was used recently; dropped tools can be found again", async () => {
    const run = makeRegistry().createRun();
    run.activate(["weather", "stocks", "news"]);
    await run.call("weather", {});
    await run.call("count", {});
    await run.call("count", {});
    await run.call("stocks", {});
    expect(run.compact({ keep: "all" })).toEqual({ kept: ["weather", "stocks", "news"], dropped: [] });
    expect(run.compact({ keep: { usedWithinCalls: 2 } })).toEqual({ kept: ["stocks"], dropped: ["weather", "news"] });
    expect(run.isVisible("weather")).toBe(false);
    expect(await run.call("weather", {})).toMatchObject({ ok: false, error: { code: "tool_not_activated" } });
    const found = await run.call("find_tool", { query: "weather" });
    expect(found.ok).toBe(true);
    expect(run.isVisible("weather")).toBe(true);
    expect(run.compact({ keep: "none" }).kept).toEqual([]);
    expect(() => run.compact({ keep: { usedWithinCalls: -1 } })).toThrow(ConfigurationError);
  });
});
