import { afterEach, describe, expect, it, vi } from "vitest";
import type { ApprovalEvents } from "./approval-broker.js";
import { InMemoryApprovalBroker } from "./in-memory-approval-broker.js";

const request = {
  runId: "r1",
  callId: "c1",
  toolName: "write",
  input: { path: "a" },
  mutating: true,
  policy: "destructive" as const,
};

function brokerWithIds(options: { timeoutMs?: number } = {}) {
  let next = 0;
  return new InMemoryApprovalBroker({ ...options, createId: () => `a${++next}` });
}

describe("InMemoryApprovalBroker", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("lists a pending request until it is approved, then approves only once", async () => {
    const broker = brokerWithIds();
    const decision = broker.request(request);
    expect(broker.pending().map((pending) => [pending.id, pending.toolName])).toEqual([["a1", "write"]]);
    expect(broker.approve("a1")).toBe(true);
    expect(await decision).toEqual({ id: "a1", decision: "approved", reason: undefined, resolvedBy: "host" });
    expect(broker.approve("a1")).toBe(false);
    expect(broker.deny("a1")).toBe(false);
    expect(broker.pending()).toEqual([]);
  });

  it("denies with a reason and filters pending requests by run", async () => {
    const broker = brokerWithIds();
    const first = broker.request(request);
    const second = broker.request({ ...request, runId: "r2" });
    expect(broker.pending({ runId: "r2" }).map((pending) => pending.id)).toEqual(["a2"]);
    broker.deny("a1", "not in production");
    expect(await first).toMatchObject({ decision: "denied", reason: "not in production", resolvedBy: "host" });
    broker.approve("a2");
    expect((await second).decision).toBe("approved");
  });

  it("denies a request nobody answers in time", async () => {
    vi.useFakeTimers();
    const broker = brokerWithIds({ timeoutMs: 10_000 });
    const decision = broker.request(request);
    await vi.advanceTimersByTimeAsync(9_999);
    expect(broker.pending()).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(await decision).toMatchObject({ decision: "denied", resolvedBy: "timeout", reason: "nobody approved it within 10 s" });
    expect(broker.pending()).toEqual([]);
  });

  it("withdraws a request when its call is aborted, also when aborted before asking", async () => {
    const broker = brokerWithIds();
    const controller = new AbortController();
    const decision = broker.request(request, { signal: controller.signal });
    controller.abort();
    expect(await decision).toMatchObject({ decision: "denied", resolvedBy: "abort" });
    expect(await broker.request(request, { signal: AbortSignal.abort() })).toMatchObject({ resolvedBy: "abort" });
    expect(broker.pending()).toEqual([]);
  });

  it("emits approval.requested and approval.resolved", async () => {
    const broker = brokerWithIds();
    const seen: string[] = [];
    broker.events.on("approval.requested", (pending) => seen.push(`requested ${pending.id}`));
    broker.events.on("approval.resolved", (resolution: ApprovalEvents["approval.resolved"]) =>
      seen.push(`resolved ${resolution.id} ${resolution.decision} ${resolution.request.toolName}`),
    );
    const decision = broker.request(request);
    broker.approve("a1");
    await decision;
    expect(seen).toEqual(["requested a1", "resolved a1 approved write"]);
  });
});
