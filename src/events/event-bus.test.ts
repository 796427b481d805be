import { describe, expect, it, vi } from "vitest";
import { EventBus } from "./event-bus.js";

interface Events {
  ping: { n: number };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 10));

describe("EventBus", () => {
  it("reports a throwing listener and still runs the next one", () => {
    const errors: [unknown, string][] = [];
    const bus = new EventBus<Events>({ onListenerError: (error, type) => errors.push([error, type]) });
    const seen: number[] = [];
    bus.on("ping", () => {
      throw new Error("sync bug");
    });
    bus.on("ping", ({ n }) => seen.push(n));
    bus.emit("ping", { n: 1 });
    expect(seen).toEqual([1]);
    expect(errors.map(([error, type]) => [(error as Error).message, type])).toEqual([["sync bug", "ping"]]);
  });

  it("reports an async listener's rejection to onListenerError, not as an unhandled rejection", async () => {
    const errors: unknown[] = [];
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on("unhandledRejection", onUnhandled);
    try {
      const bus = new EventBus<Events>({ onListenerError: (error) => errors.push(error) });
      bus.on("ping", async () => {
        throw new Error("async bug");
      });
      // A thenable whose `then` rejects, and one whose `then` getter throws.
      bus.on("ping", (() => ({
        // biome-ignore lint/suspicious/noThenProperty: a hostile thenable is the point of the test.
        then: (_: unknown, reject: (e: unknown) => void) => reject("thenable bug"),
      })) as never);
      bus.on("ping", (() => ({
        // biome-ignore lint/suspicious/noThenProperty: a throwing `then` getter is the point of the test.
        get then() {
          throw new Error("getter bug");
        },
      })) as never);
      // Control: a listener resolving normally reports nothing.
      bus.on("ping", async () => undefined);
      bus.emit("ping", { n: 1 });
      await settle();
      expect(errors.map((error) => (error instanceof Error ? error.message : error)).sort()).toEqual([
        "async bug",
        "getter bug",
        "thenable bug",
      ]);
      expect(unhandled).toEqual([]);
    } finally {
      process.off("unhandledRejection", onUnhandled);
    }
  });

  it("a listener returning a thenable that resolves to itself cannot freeze the process", async () => {
    const errors: unknown[] = [];
    const bus = new EventBus<Events>({ onListenerError: (error) => errors.push(error) });
    const looping: { then: (resolve: (value: unknown) => void) => void } = {
      // biome-ignore lint/suspicious/noThenProperty: the hostile thenable is the point of the test.
      then: (resolve) => resolve(looping),
    };
    bus.on("ping", (() => looping) as never);
    const seen: number[] = [];
    bus.on("ping", ({ n }) => seen.push(n));
    bus.emit("ping", { n: 1 });
    // With `await`/Promise.resolve the microtask queue never empties and this timer never fires.
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(seen).toEqual([1]);
    await vi.waitFor(() => expect(errors).toHaveLength(1), { timeout: 5_000 });
    expect(String((errors[0] as Error).message)).toContain("levels");
  });
});
