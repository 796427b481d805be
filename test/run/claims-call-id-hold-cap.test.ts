/**
 * README, "Calling tools": a handler that ignores its abort signal after the call answered keeps
 * the call id claimed "until it settles, at most 10 minutes". The cap is a timer in the run
 * (MAX_CLAIM_HOLD_AFTER_ANSWER_MS) and the claim's 30 s lease is renewed by another timer, so both
 * run here on vitest's fake clock (timers and Date; the store reads the same Date) instead of
 * waiting 10 minutes. Everything else is real: createRun, the call pipeline, InMemoryRunStore's
 * claims and leases, two copies of one run as two processes would hold them.
 */
import { createRegistry, defineTool, InMemoryRunStore, type ToolCallResult } from "agent-tool-catalog";
import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";

const code = (result: ToolCallResult) => (result.ok ? "ok" : result.error.code);
const MINUTE = 60_000;

afterEach(() => {
  vi.useRealTimers();
});

/**
 * A `deploy` tool whose first run is `first` (later runs answer at once), on the fake clock, and a
 * way to open the run "conv" in its store as another process continuing it would.
 */
function deployOnFakeClock(first: () => Promise<string>) {
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date"] });
  const state = { runs: 0 };
  const registry = createRegistry({
    tools: [
      defineTool({
        name: "deploy",
        description: "Deploys.",
        inputSchema: z.object({}),
        handler: () => (++state.runs === 1 ? first() : "deployed"),
      }),
    ],
  });
  const store = new InMemoryRunStore({ now: () => Date.now() });
  return { state, registry, copy: () => registry.createRun({ runId: "conv", store }) };
}

describe("the claim kept after the answer for a handler that never settles", () => {
  it("holds the id past its 30 s lease for nearly 10 minutes, then frees it", async () => {
    // The first run ignores its abort signal and never settles.
    const { state, registry, copy } = deployOnFakeClock(() => new Promise<string>(() => undefined));

    const caller = new AbortController();
    const first = copy().call("deploy", {}, { callId: "toolu_1", signal: caller.signal });
    await vi.advanceTimersByTimeAsync(100);
    expect(state.runs).toBe(1);
    caller.abort();
    expect(code(await first)).toBe("aborted");

    // Well past the 30 s lease (renewed while the handler goes on) and just short of the cap:
    // another process continuing the run is still refused, and the tool is not run again.
    await vi.advanceTimersByTimeAsync(9 * MINUTE + 50_000);
    expect(code(await copy().call("deploy", {}, { callId: "toolu_1" }))).toBe("duplicate_call_id");
    expect(state.runs).toBe(1);

    // Past 10 minutes the hold ends although the handler never settled: the id is free again.
    await vi.advanceTimersByTimeAsync(11_000);
    expect(code(await copy().call("deploy", {}, { callId: "toolu_1" }))).toBe("ok");
    expect(state.runs).toBe(2);
    await registry.close();
  });

  it("control: a handler that settles frees the id at once, long before the cap", async () => {
    let finish: () => void = () => undefined;
    const { state, registry, copy } = deployOnFakeClock(
      () =>
        new Promise<string>((resolve) => {
          finish = () => resolve("late");
        }),
    );
    const caller = new AbortController();
    const first = copy().call("deploy", {}, { callId: "toolu_1", signal: caller.signal });
    await vi.advanceTimersByTimeAsync(100);
    caller.abort();
    expect(code(await first)).toBe("aborted");
    await vi.advanceTimersByTimeAsync(MINUTE);
    expect(code(await copy().call("deploy", {}, { callId: "toolu_1" }))).toBe("duplicate_call_id");
    finish();
    await vi.advanceTimersByTimeAsync(100);
    expect(code(await copy().call("deploy", {}, { callId: "toolu_1" }))).toBe("ok");
    expect(state.runs).toBe(2);
    await registry.close();
  });
});
