import { describe, expect, it } from "vitest";
import { ManualClock, sleep, systemClock } from "../../src/host/index.js";

describe("ManualClock", () => {
  it("fires due timers in order, including ones scheduled while advancing, and lets async work settle", async () => {
    const clock = new ManualClock(1_000);
    const fired: string[] = [];
    clock.setTimeout(() => fired.push(`b@${clock.now()}`), 200);
    clock.setTimeout(() => {
      fired.push(`a@${clock.now()}`);
      clock.setTimeout(() => fired.push(`c@${clock.now()}`), 50);
    }, 100);
    const cancelled = clock.setTimeout(() => fired.push("never"), 120);
    clock.clearTimeout(cancelled);
    await clock.advance(160);
    expect(fired).toEqual(["a@1100", "c@1150"]);
    expect(clock.now()).toBe(1_160);
    await clock.advance(1_000);
    expect(fired).toEqual(["a@1100", "c@1150", "b@1200"]);
    expect(clock.pendingTimers).toBe(0);
  });

  it("drives sleep, which honours abort", async () => {
    const clock = new ManualClock();
    let woke = false;
    const sleeping = sleep(clock, 5_000).then(() => {
      woke = true;
    });
    await clock.advance(4_999);
    expect(woke).toBe(false);
    await clock.advance(1);
    await sleeping;
    expect(woke).toBe(true);
    const controller = new AbortController();
    const aborted = sleep(clock, 5_000, controller.signal);
    controller.abort(new Error("stop"));
    await expect(aborted).rejects.toThrow("stop");
    expect(clock.pendingTimers).toBe(0);
  });
});

describe("systemClock", () => {
  it("fires real timers and clears them", async () => {
    let fired = 0;
    const handle = systemClock.setTimeout(() => fired++, 5);
    systemClock.clearTimeout(handle);
    await sleep(systemClock, 20);
    expect(fired).toBe(0);
    // Between two readings of Date.now taken around it: a 50 ms tolerance failed whenever a loaded
    // machine (load 20 on 2 cores) paused the process between the two calls for longer.
    const before = Date.now();
    const now = systemClock.now();
    const after = Date.now();
    expect(now).toBeGreaterThanOrEqual(before);
    expect(now).toBeLessThanOrEqual(after);
  });
});
