// Red team round 8: a run store (host code) whose answer is a thenable resolving to itself. `await`
// follows it in microtasks forever, so no timer fires again: the call's save bound, and every other
// timer of the host, stopped. The run settles such answers level by level instead.
import { createRegistry, defineTool, InMemoryRunStore, openRun, type RunState, type RunStore } from "agent-tool-catalog";
import { describe, expect, it } from "vitest";
import { z } from "zod";

const looping: { then: (resolve: (value: unknown) => void) => void } = {
  // biome-ignore lint/suspicious/noThenProperty: the hostile thenable is the point of the test.
  then: (resolve) => resolve(looping),
};

const echo = defineTool({
  name: "echo",
  description: "Echoes.",
  tier: "core",
  inputSchema: z.object({ text: z.string() }),
  handler: ({ text }) => text,
});

function store(overrides: Partial<RunStore<RunState>>): RunStore<RunState> {
  const memory = new InMemoryRunStore();
  return {
    load: (id) => memory.load(id),
    save: (id, state, options) => memory.save(id, state, options),
    delete: (id) => memory.delete(id),
    ...overrides,
  };
}

/** Counts timer ticks while `work` runs: zero means the event loop was starved. */
async function ticksDuring<T>(work: () => Promise<T>): Promise<{ value: T; ticks: number }> {
  let ticks = 0;
  const ticker = setInterval(() => ticks++, 1);
  try {
    return { value: await work(), ticks };
  } finally {
    clearInterval(ticker);
  }
}

describe("a run store answering with a self-resolving thenable cannot freeze the process", () => {
  it("openRun rejects instead of hanging; the same store without the thenable opens (control)", async () => {
    const registry = createRegistry({ tools: [echo] });
    const { value, ticks } = await ticksDuring(() =>
      openRun(registry, { store: store({ load: () => looping as never }), runId: "r" }).then(
        () => "opened",
        (error: unknown) => String(error),
      ),
    );
    expect(value).toMatch(/levels/);
    expect(ticks).toBeGreaterThan(0);
    const control = await openRun(registry, { store: store({}), runId: "r" });
    expect(await control.call("echo", { text: "hi" })).toMatchObject({ ok: true, output: "hi" });
  });

  it("run.call returns its result and reports the save as failed; a store that saves reports nothing (control)", async () => {
    const registry = createRegistry({ tools: [echo] });
    const diagnostics: string[] = [];
    const run = await openRun(registry, { store: store({ save: () => looping as never }), runId: "r" });
    run.events.on("run.diagnostic", (event) => diagnostics.push(event.kind));
    const { value, ticks } = await ticksDuring(() => run.call("echo", { text: "hi" }));
    expect(value).toMatchObject({ ok: true, output: "hi" });
    expect(ticks).toBeGreaterThan(0);
    expect(diagnostics).toContain("state_save_failed");

    const healthy = await openRun(registry, { store: store({}), runId: "s" });
    const seen: string[] = [];
    healthy.events.on("run.diagnostic", (event) => seen.push(event.kind));
    expect(await healthy.call("echo", { text: "hi" })).toMatchObject({ ok: true, output: "hi" });
    expect(seen).toEqual([]);
  });
});
