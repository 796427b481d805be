import { describe, expect, it } from "vitest";
import { inSyncSlices, StepPacer } from "./sync-slices.js";

const busy = (ms: number) => {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // A synchronous step the "disk" makes wait.
  }
};

describe("inSyncSlices", () => {
  it("runs fast steps synchronously, each once, errors at their index", async () => {
    const seen: number[] = [];
    const errors = await inSyncSlices(
      Array.from({ length: 1000 }, (_, index) => index),
      (item) => {
        if (item % 100 === 7) throw new Error(`bad ${item}`);
        seen.push(item);
      },
      async () => {
        throw new Error("the thread-pool path must not be taken for fast steps");
      },
    );
    expect(seen).toHaveLength(990);
    expect(errors.flatMap((error, index) => (error === undefined ? [] : [index]))).toEqual([
      7, 107, 207, 307, 407, 507, 607, 707, 807, 907,
    ]);
  });

  it("hands the rest to the thread-pool step when synchronous steps are slow, each item still once", async () => {
    const sync: number[] = [];
    const pooled: number[] = [];
    const errors = await inSyncSlices(
      Array.from({ length: 40 }, (_, index) => index),
      (item) => {
        busy(3);
        sync.push(item);
      },
      async (item) => {
        if (item === 39) throw new Error("last fails");
        pooled.push(item);
      },
    );
    expect(sync.length).toBeGreaterThan(0);
    expect(sync.length).toBeLessThan(10);
    expect([...sync, ...pooled, 39].sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, index) => index));
    expect(errors[39]).toBeInstanceOf(Error);
  });

  it("StepPacer stays synchronous for fast steps and turns slow for steps the disk makes wait", async () => {
    const fast = new StepPacer();
    let yielded = 0;
    const timer = setInterval(() => yielded++, 0);
    try {
      for (let step = 0; step < 20_000; step++) {
        busy(0.001);
        await fast.stepped();
      }
    } finally {
      clearInterval(timer);
    }
    expect(fast.slow).toBe(false);
    // 20,000 steps take well over one 8 ms slice: the loop yielded to the event loop on the way.
    expect(yielded).toBeGreaterThan(0);
    const slow = new StepPacer();
    for (let step = 0; step < 6 && !slow.slow; step++) {
      busy(3);
      await slow.stepped();
    }
    expect(slow.slow).toBe(true);
  });
});
