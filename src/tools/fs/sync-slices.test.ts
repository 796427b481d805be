import { describe, expect, it } from "vitest";
import { inSyncSlices, StepPacer } from "./sync-slices.js";

/**
 * A synchronous step the "disk" makes wait: the thread blocked (not runnable) for `ms`, as in a
 * journal commit. Time it spends waiting for a CPU on a loaded machine only adds to that.
 */
const blocked = (ms: number) => {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
};

describe("inSyncSlices", () => {
  it("runs fast steps synchronously, each once, errors at their index", async () => {
    // A fake clock at 0.5 ms a step: with the real one, a process preempted for 10 ms (a loaded
    // machine) sees its microsecond steps average over 1 ms, and takes the thread-pool path.
    const clock = new FakeClock();
    const seen: number[] = [];
    const errors = await inSyncSlices(
      Array.from({ length: 1000 }, (_, index) => index),
      (item) => {
        clock.advance(0.5);
        if (item % 100 === 7) throw new Error(`bad ${item}`);
        seen.push(item);
      },
      async () => {
        throw new Error("the thread-pool path must not be taken for fast steps");
      },
      clock.now,
    );
    expect(seen).toHaveLength(990);
    expect(errors.flatMap((error, index) => (error === undefined ? [] : [index]))).toEqual([
      7, 107, 207, 307, 407, 507, 607, 707, 807, 907,
    ]);
  });

  // The real clock: a loaded machine only makes these steps slower, so this holds under any load.
  it("hands the rest to the thread-pool step when synchronous steps are slow, each item still once", async () => {
    const sync: number[] = [];
    const pooled: number[] = [];
    const errors = await inSyncSlices(
      Array.from({ length: 40 }, (_, index) => index),
      (item) => {
        blocked(3);
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

  it("with a fake clock: after the slice whose steps averaged over 1 ms, every other item goes to the thread pool", async () => {
    const slow = new FakeClock();
    const sync: number[] = [];
    const pooled: number[] = [];
    await inSyncSlices(
      Array.from({ length: 10 }, (_, index) => index),
      (item) => {
        slow.advance(3);
        sync.push(item);
      },
      async (item) => {
        pooled.push(item);
      },
      slow.now,
    );
    // 9 ms after the third step: over the 8 ms slice at 3 ms a step, so the rest goes to the pool.
    expect(sync).toEqual([0, 1, 2]);
    expect(pooled.sort((a, b) => a - b)).toEqual([3, 4, 5, 6, 7, 8, 9]);
  });

  it("time spent waiting for a CPU (a loaded machine) does not make steps slow; the rest of their time still does", async () => {
    for (const waitingMs of [2.5, 1.5]) {
      const clock = new FakeClock();
      const queue = new FakeClock();
      const sync: number[] = [];
      await inSyncSlices(
        Array.from({ length: 10 }, (_, index) => index),
        (item) => {
          // 3 ms of wall time a step, `waitingMs` of it runnable but preempted.
          clock.advance(3);
          queue.advance(waitingMs);
          sync.push(item);
        },
        async () => {
          if (waitingMs === 2.5) throw new Error("0.5 ms a step of the disk's own time is fast");
        },
        clock.now,
        queue.now,
      );
      // 2.5 ms queued: 0.5 ms a step left, all synchronous. 1.5 ms: 1.5 ms a step left, slow.
      expect(sync).toEqual(waitingMs === 2.5 ? [0, 1, 2, 3, 4, 5, 6, 7, 8, 9] : [0, 1, 2]);
    }
  });
});

/** A clock that moves only when told: the pacing it measures no longer depends on the machine's load. */
class FakeClock {
  private ms = 0;
  readonly now = () => this.ms;
  advance(ms: number): void {
    this.ms += ms;
  }
}

/** Awaits `step` and says whether it gave the event loop a turn (an immediate queued before it ran). */
async function yieldedDuring(step: () => Promise<void>): Promise<boolean> {
  let turned = false;
  const sentinel = setImmediate(() => {
    turned = true;
  });
  await step();
  clearImmediate(sentinel);
  return turned;
}

/** Runs `steps` steps of `stepMs` each (fake time) through `pacer`; the 0-based steps after which it yielded. */
async function paced(pacer: StepPacer, clock: FakeClock, steps: number, stepMs: number): Promise<number[]> {
  const yields: number[] = [];
  for (let step = 0; step < steps; step++) {
    clock.advance(stepMs);
    if (await yieldedDuring(() => pacer.stepped())) yields.push(step);
  }
  return yields;
}

describe("StepPacer", () => {
  it("stays synchronous for fast steps, yielding to the event loop once per 8 ms slice", async () => {
    const clock = new FakeClock();
    const pacer = new StepPacer(clock.now);
    // 0.5 ms a step: the 17th step of a slice (8.5 ms) ends it.
    expect(await paced(pacer, clock, 100, 0.5)).toEqual([16, 33, 50, 67, 84]);
    expect(pacer.slow).toBe(false);
  });

  it("turns slow, for good, once a slice's steps average over 1 ms; 1 ms exactly stays synchronous", async () => {
    const atLimit = new FakeClock();
    const steady = new StepPacer(atLimit.now);
    expect(await paced(steady, atLimit, 40, 1)).toEqual([8, 17, 26, 35]);
    expect(steady.slow).toBe(false);

    const clock = new FakeClock();
    const pacer = new StepPacer(clock.now);
    // Two slices of fast steps first: each slice is judged by its own steps alone.
    expect(await paced(pacer, clock, 34, 0.5)).toEqual([16, 33]);
    await paced(pacer, clock, 2, 3);
    expect(pacer.slow).toBe(false);
    // The third 3 ms step ends the slice (9 ms): 3 ms a step.
    expect(await paced(pacer, clock, 1, 3)).toEqual([0]);
    expect(pacer.slow).toBe(true);
    // Fast steps afterwards do not turn it back.
    await paced(pacer, clock, 100, 0.01);
    expect(pacer.slow).toBe(true);
  });

  it("time spent waiting for a CPU is taken off a slice before it is judged", async () => {
    for (const waitingMs of [2.5, 1.5]) {
      const clock = new FakeClock();
      const queue = new FakeClock();
      const pacer = new StepPacer(clock.now, queue.now);
      for (let step = 0; step < 3; step++) {
        clock.advance(3);
        queue.advance(waitingMs);
        await pacer.stepped();
      }
      expect(pacer.slow).toBe(waitingMs === 1.5);
    }
  });

  it("resumed(): time spent awaiting other work between steps is not the steps' (a spawn during grep's look)", async () => {
    for (const resume of [false, true]) {
      const clock = new FakeClock();
      const pacer = new StepPacer(clock.now);
      await paced(pacer, clock, 2, 0.1);
      // The caller awaited a read; meanwhile the loop ran a 10 ms synchronous spawn.
      clock.advance(10);
      if (resume) pacer.resumed();
      await paced(pacer, clock, 2, 0.1);
      expect(pacer.slow).toBe(!resume);
    }
  });

  it("with the real clock: steps the disk makes wait turn it slow (a loaded machine only makes them slower)", async () => {
    const slow = new StepPacer();
    for (let step = 0; step < 6 && !slow.slow; step++) {
      blocked(3);
      await slow.stepped();
    }
    expect(slow.slow).toBe(true);
  });
});
