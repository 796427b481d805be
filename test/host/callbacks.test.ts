import { describe, expect, it } from "vitest";
import { callbackToolGroup, type DelayedCallback, InProcessCallbackManager, ManualClock } from "../../src/host/index.js";
import { failure, hostRun, output, record, toolNames } from "./support/host-test-kit.js";

function callbackSetup(onFire?: (callback: DelayedCallback) => void | Promise<void>) {
  const clock = new ManualClock(Date.UTC(2025, 0, 1));
  const fired: DelayedCallback[] = [];
  const manager = new InProcessCallbackManager({ clock, onFire: onFire ?? ((callback) => void fired.push(callback)) });
  const { registry, run } = hostRun([callbackToolGroup({ manager })]);
  return { clock, manager, fired, registry, run };
}

describe("callback tool group", () => {
  it("is present only with a manager and the switch on", () => {
    const manager = new InProcessCallbackManager({ onFire: () => undefined });
    expect(toolNames(hostRun([callbackToolGroup({})]).registry)).toEqual([]);
    expect(toolNames(hostRun([callbackToolGroup({ manager, enableCallbacks: false })]).registry)).toEqual([]);
    expect(toolNames(hostRun([callbackToolGroup({ manager })]).registry)).toEqual([
      "set_delayed_callback",
      "cancel_delayed_callback",
      "list_delayed_callbacks",
    ]);
  });
});

describe("delayed callbacks", () => {
  it("fire once after the delay and re-invoke the agent in its conversation", async () => {
    const { clock, fired, run } = callbackSetup();
    const set = record(await run.call("set_delayed_callback", { delay_seconds: 5, message: "Check the build." }));
    expect(set).toMatchObject({ status: "pending", due_at: "2025-01-01T00:00:05.000Z" });
    expect(output(await run.call("list_delayed_callbacks", {}))).toEqual([set]);
    await clock.advance(4_999);
    expect(fired).toHaveLength(0);
    await clock.advance(1);
    expect(fired.map((callback) => [callback.conversationId, callback.message])).toEqual([[run.id, "Check the build."]]);
    expect(output(await run.call("list_delayed_callbacks", {}))).toEqual([]);
    await clock.advance(3_600_000);
    expect(fired).toHaveLength(1);
  });

  it("refuses delays under 5 s or over an hour", async () => {
    const { run } = callbackSetup();
    expect(failure(await run.call("set_delayed_callback", { delay_seconds: 4, message: "x" })).code).toBe("invalid_input");
    expect(failure(await run.call("set_delayed_callback", { delay_seconds: 3601, message: "x" })).code).toBe("invalid_input");
    expect(failure(await run.call("set_delayed_callback", { delay_seconds: 60, message: " " })).code).toBe("invalid_input");
    record(await run.call("set_delayed_callback", { delay_seconds: 3600, message: "x" }));
  });

  it("allows at most 10 pending per conversation; other conversations have their own", async () => {
    const { registry, run, manager } = callbackSetup();
    for (let index = 0; index < 10; index++)
      record(await run.call("set_delayed_callback", { delay_seconds: 60 + index, message: `#${index}` }));
    const refused = failure(await run.call("set_delayed_callback", { delay_seconds: 60, message: "one more" }));
    expect(refused).toMatchObject({ code: "too_many_callbacks", hint: expect.stringContaining("cancel_delayed_callback") });
    const other = registry.createRun({ profile: "full", context: { conversationId: "other" } });
    other.activate(["set_delayed_callback"]);
    record(await other.call("set_delayed_callback", { delay_seconds: 60, message: "fine" }));
    expect(await manager.list("other")).toHaveLength(1);
  });

  it("cancels a pending callback of this conversation only", async () => {
    const { clock, fired, registry, run } = callbackSetup();
    const set = record(await run.call("set_delayed_callback", { delay_seconds: 30, message: "x" }));
    const stranger = registry.createRun({ profile: "full" });
    stranger.activate(["cancel_delayed_callback"]);
    expect(failure(await stranger.call("cancel_delayed_callback", { id: set.id })).code).toBe("unknown_callback");
    expect(record(await run.call("cancel_delayed_callback", { id: set.id })).status).toBe("cancelled");
    expect(failure(await run.call("cancel_delayed_callback", { id: set.id })).code).toBe("unknown_callback");
    await clock.advance(60_000);
    expect(fired).toHaveLength(0);
    expect(clock.pendingTimers).toBe(0);
  });

  it("keeps the error of a failed re-invocation on the callback", async () => {
    const { clock, manager, run } = callbackSetup(() => Promise.reject(new Error("agent busy")));
    const set = record(await run.call("set_delayed_callback", { delay_seconds: 5, message: "x" }));
    await clock.advance(5_000);
    await manager.idle();
    expect(manager.get(String(set.id))).toMatchObject({ status: "failed", error: "agent busy" });
  });
});
