import { InMemoryRunStore, type RunState, type RunStore } from "agent-tool-catalog";
import { describe, expect, it } from "vitest";
import { RunPersistence } from "./run-persistence.js";

/** A store whose saves wait until `release` is called (a hung server), then go to memory. */
function hangingStore(): { store: RunStore<RunState>; release: () => void } {
  const memory = new InMemoryRunStore();
  let release: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  return {
    store: {
      load: (id) => memory.load(id),
      delete: (id) => memory.delete(id),
      save: async (id, state, options) => {
        await gate;
        return memory.save(id, state, options);
      },
    },
    release,
  };
}

function persistence(store: RunStore<RunState>, errors: unknown[]) {
  return new RunPersistence({
    store,
    runId: "r",
    revision: 0,
    ttlMs: undefined,
    snapshot: () => ({}) as RunState,
    onError: (error) => errors.push(error),
  });
}

describe("RunPersistence.saveWithin", () => {
  it("returns at its bound when the store never answers, and the queued saves land in order later", async () => {
    const { store, release } = hangingStore();
    const errors: unknown[] = [];
    const saves = persistence(store, errors);
    const started = Date.now();
    expect(await saves.saveWithin(100)).toBeUndefined();
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(String(errors[0])).toMatch(/did not confirm the save/);
    const second = saves.saveWithin(5_000);
    release();
    expect(await second).toBe(2);
    expect(saves.lastRevision).toBe(2);
    expect(errors).toHaveLength(1);
  });

  it("after an abort waits one second more, and a healthy store's save is not reported (control)", async () => {
    const errors: unknown[] = [];
    const healthy = persistence(new InMemoryRunStore(), errors);
    expect(await healthy.saveWithin(10_000, AbortSignal.abort())).toBe(1);
    expect(errors).toEqual([]);

    const { store } = hangingStore();
    const hung = persistence(store, errors);
    const started = Date.now();
    expect(await hung.saveWithin(60_000, AbortSignal.abort())).toBeUndefined();
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(errors).toHaveLength(1);
  });

  it("returns at its bound when the store's save is a thenable resolving to itself", async () => {
    const memory = new InMemoryRunStore();
    const looping: { then: (resolve: (value: unknown) => void) => void } = {
      // biome-ignore lint/suspicious/noThenProperty: the hostile thenable is the point of the test.
      then: (resolve) => resolve(looping),
    };
    const store: RunStore<RunState> = {
      load: (id) => memory.load(id),
      delete: (id) => memory.delete(id),
      save: () => looping as never,
    };
    const errors: unknown[] = [];
    const started = Date.now();
    // With `await` the microtask queue never empties: the bound's timer could never fire.
    expect(await persistence(store, errors).saveWithin(100)).toBeUndefined();
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(errors.length).toBeGreaterThan(0);
  });
});
