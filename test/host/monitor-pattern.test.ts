// monitor's `wait` runs a regular expression the model chose over a process's output. A shape
// check refuses `(a+)+`, but `^(a|a)*$` backtracks as badly with no nested quantifier: matched on
// the host's event loop it froze the whole host (every run, every timer) for as long as it ran.
import { afterEach, describe, expect, it } from "vitest";
import { monitorToolGroup } from "../../src/host/index.js";
import { failure, hostRun, record } from "./support/host-test-kit.js";

describe("monitor wait with a model's pattern", () => {
  let close: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await close?.();
  });

  it("stops a backtracking pattern with pattern_too_slow and keeps the event loop running; a plain pattern matches", async () => {
    const { registry, run } = hostRun([monitorToolGroup({ allowUnsandboxedFallback: true })]);
    close = () => registry.close();
    // One write: the backtracking line ("aaa…a!") must never be seen without its "!".
    const command = "printf '%s!\\n' \"$(printf 'a%.0s' $(seq 1 26))\"; echo ready; sleep 30";
    expect(record(await run.call("monitor", { action: "start", command }))).toMatchObject({ id: "mon_1" });
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 50);
    try {
      const slow = failure(await run.call("monitor", { action: "wait", id: "mon_1", pattern: "^(a|a)*$", timeout_seconds: 20 }));
      expect(slow.code).toBe("pattern_too_slow");
      // The host kept serving timers while the pattern ran (blocked, it would be 0).
      expect(ticks).toBeGreaterThan(10);
    } finally {
      clearInterval(ticker);
    }
    const plain = record(await run.call("monitor", { action: "wait", id: "mon_1", pattern: "^ready$", timeout_seconds: 10 }));
    expect(plain.waited).toBe("matched");
  }, 15_000);
});
