/**
 * Red team round 46 (held): twenty calls of one run wait for approval; a host approves them all
 * in the same tick as it closes the registry (before or after), or the approvals come a microtask
 * after `run.close()`. Every call must answer, its answer must say what happened (a handler ran
 * exactly for the calls answered ok), and nothing may stay pending at the broker. Control: the
 * same approvals without a close run every call.
 */
import { createRegistry, defineTool, InMemoryApprovalBroker, type ToolCallResult } from "agent-tool-catalog";
import { describe, expect, it } from "vitest";

type Order =
  | "approve, then close the registry"
  | "close the registry, then approve"
  | "close the run, approve a microtask later"
  | "approve only";

async function race(order: Order): Promise<{ results: ToolCallResult[]; ran: number[]; pending: number; taken: boolean[] }> {
  const ran: number[] = [];
  const broker = new InMemoryApprovalBroker();
  const tool = defineTool({
    name: "act",
    description: "Acts.",
    mutating: true,
    inputSchema: { type: "object", properties: { n: { type: "number" } }, required: ["n"] },
    handler: (input: { n: number }) => {
      ran.push(input.n);
      return `did ${input.n}`;
    },
  });
  const registry = createRegistry({ tools: [tool], approvals: broker });
  const run = registry.createRun({ permissions: { approval: "destructive" } });
  const calls = Array.from({ length: 20 }, (_, n) => run.call("act", { n }));
  for (let tries = 0; tries < 100 && broker.pending().length < 20; tries++)
    await new Promise((resolve) => setTimeout(resolve, 5));
  const pending = broker.pending();
  expect(pending).toHaveLength(20);
  // What each approver is told: an approval taken is one a person may believe ran.
  const taken: boolean[] = [];
  if (order === "approve, then close the registry") {
    for (const request of pending) taken.push(broker.approve(request.id));
    void registry.close();
  } else if (order === "close the registry, then approve") {
    const closing = registry.close();
    for (const request of pending) taken.push(broker.approve(request.id));
    await closing;
  } else if (order === "close the run, approve a microtask later") {
    for (const request of pending) queueMicrotask(() => taken.push(broker.approve(request.id)));
    void run.close();
  } else {
    for (const request of pending) taken.push(broker.approve(request.id));
  }
  const results = await Promise.all(calls);
  await registry.close();
  return { results, ran, pending: broker.pending().length, taken };
}

describe("approvals racing a close", () => {
  it.each<Order>([
    "approve, then close the registry",
    "close the registry, then approve",
    "close the run, approve a microtask later",
  ])("%s: every call answers as what happened, nothing left pending", async (order) => {
    const { results, ran, pending, taken } = await race(order);
    // Approved after the close withdrew the requests: refused, never "approved" for a call that
    // cannot run. Approved before it: taken, and the call answers `aborted` (it did not run).
    expect(taken).toEqual(Array(20).fill(order === "approve, then close the registry"));
    const done = results.flatMap((result, n) => (result.ok ? [n] : []));
    expect(ran.sort((a, b) => a - b)).toEqual(done);
    for (const result of results) {
      if (!result.ok) expect(result.error.code).toBe("aborted");
    }
    expect(pending).toBe(0);
  });

  it("control: approved without a close, every call runs", async () => {
    const { results, ran, pending, taken } = await race("approve only");
    expect(taken).toEqual(Array(20).fill(true));
    expect(results.every((result) => result.ok)).toBe(true);
    expect(ran).toHaveLength(20);
    expect(pending).toBe(0);
  });
});
