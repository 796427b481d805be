import {
  type ChildRunState,
  ConfigurationError,
  createRegistry,
  defineTool,
  InMemoryRunStore,
  openRun,
  type RunState,
  type RunStateV2,
} from "agent-tool-catalog";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { MAX_CHILD_RUNS } from "./child-runs.js";

// A tool that "starts" a child and records it, as the subagent and workflow tools do.
const spawnChild = defineTool({
  name: "spawn_child",
  description: "Starts a child.",
  inputSchema: z.object({ id: z.string(), status: z.enum(["running", "completed", "failed", "cancelled"]) }),
  handler: ({ id, status }, ctx) => {
    ctx.recordChildRun({ kind: "subagent", id, status, label: `task ${id}`, startedAt: 1_000 });
    return id;
  },
});

const registry = () => createRegistry({ tools: [spawnChild] });

describe("child runs in the run state", () => {
  it("round-trip through toJSON and createRun({ state }), updated in place by kind and id", async () => {
    const run = registry().createRun({ runId: "parent" });
    await run.call("spawn_child", { id: "sub_1", status: "running" });
    run.recordChildRun({ kind: "workflow", id: "wf_1", status: "running", label: "research", startedAt: 2_000 });
    await run.call("spawn_child", { id: "sub_1", status: "completed" });
    const state = JSON.parse(JSON.stringify(run.toJSON())) as RunState;
    expect(state.version).toBe(3);
    expect(state.children).toEqual([
      { kind: "workflow", id: "wf_1", status: "running", label: "research", startedAt: 2_000 },
      { kind: "subagent", id: "sub_1", status: "completed", label: "task sub_1", startedAt: 1_000 },
    ]);
    const continued = registry().createRun({ state });
    expect(continued.childRuns()).toEqual(state.children);
    // Positive control: a fresh run has none.
    expect(registry().createRun().childRuns()).toEqual([]);
  });

  it("migrates a version 2 state (no children) and refuses malformed children with the entry at fault", () => {
    const v2: RunStateV2 = {
      version: 2,
      runId: "old",
      activation: { version: 1, activated: [] },
      skills: [],
      storage: {},
      pendingApprovals: [],
    };
    const run = registry().createRun({ state: v2 });
    expect(run.childRuns()).toEqual([]);
    expect(run.toJSON()).toMatchObject({ version: 3, runId: "old", children: [] });
    const good: ChildRunState = { kind: "subagent", id: "sub_1", status: "running", startedAt: 1 };
    const v3 = { ...v2, version: 3, children: [good] } as const;
    expect(registry().createRun({ state: v3 }).childRuns()).toEqual([good]);
    const bad: [unknown, RegExp][] = [
      [undefined, /children must be a list/],
      [[{ ...good, status: "lost" }], /children\[0\]: status/],
      [[good, { ...good, id: "" }], /children\[1\]: id/],
      [[{ ...good, startedAt: "yesterday" }], /startedAt/],
      [[{ ...good, label: "x".repeat(201) }], /label/],
      [Array.from({ length: MAX_CHILD_RUNS + 1 }, (_, index) => ({ ...good, id: `sub_${index}` })), /at most/],
    ];
    for (const [children, message] of bad) {
      const state = { ...v3, children } as unknown as RunState;
      expect(() => registry().createRun({ state })).toThrow(ConfigurationError);
      expect(() => registry().createRun({ state })).toThrow(message);
    }
  });

  it("stay small: long labels are cut, and past the limit the oldest ended child goes first", () => {
    const run = registry().createRun();
    run.recordChildRun({ kind: "subagent", id: "long", status: "running", label: "y".repeat(5_000), startedAt: 0 });
    expect(run.childRuns()[0]?.label).toHaveLength(200);
    run.recordChildRun({ kind: "subagent", id: "ended-early", status: "completed", startedAt: 1 });
    for (let index = 0; index < MAX_CHILD_RUNS; index++) {
      run.recordChildRun({ kind: "subagent", id: `sub_${index}`, status: "running", startedAt: 2 + index });
    }
    const ids = run.childRuns().map((child) => child.id);
    expect(ids).toHaveLength(MAX_CHILD_RUNS);
    expect(ids).not.toContain("ended-early");
    expect(ids).not.toContain("long"); // all running then: the oldest goes
    expect(ids.at(-1)).toBe(`sub_${MAX_CHILD_RUNS - 1}`);
    expect(() => run.recordChildRun({ kind: "", id: "x", status: "running", startedAt: 0 })).toThrow(/kind/);
  });

  it("are saved as soon as they are recorded, before the call that started them ends", async () => {
    const store = new InMemoryRunStore<RunState>();
    let release: () => void = () => undefined;
    const slow = defineTool({
      name: "slow_spawn",
      description: "Starts a child, then waits.",
      inputSchema: z.object({}),
      handler: async (_input, ctx) => {
        ctx.recordChildRun({ kind: "workflow", id: "wf_9", status: "running", startedAt: 5 });
        await new Promise<void>((resolve) => {
          release = resolve;
        });
        return "done";
      },
    });
    const run = await openRun(createRegistry({ tools: [slow] }), { store, runId: "saving" });
    const call = run.call("slow_spawn", {});
    await expect
      .poll(async () => (await store.load("saving"))?.state.children)
      .toEqual([{ kind: "workflow", id: "wf_9", status: "running", startedAt: 5 }]);
    release();
    expect(await call).toMatchObject({ ok: true });
  });
});
