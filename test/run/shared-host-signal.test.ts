/**
 * README ("Calling tools"): "Each call gets its own AbortSignal, so any number of concurrent
 * calls adds nothing to a long-lived signal." A host commonly passes one signal for a whole
 * conversation (or request) to every call of it. Attacked: 300 concurrent calls (a run store
 * that claims call ids and saves, an approval that waits, handlers that add listeners to their
 * own signal and never remove them) all under one host signal: while they run it holds at most
 * one listener (no `MaxListenersExceededWarning`), and none once they settled. Positive
 * control: aborting that signal still aborts every call in flight.
 */
import { getEventListeners } from "node:events";
import { createRegistry, defineTool, InMemoryRunStore } from "agent-tool-catalog";
import { describe, expect, it } from "vitest";

const CALLS = 300;

function slowTool(gate: Promise<void>) {
  return defineTool({
    name: "slow",
    description: "Waits for the gate.",
    inputSchema: { type: "object", properties: { n: { type: "number" } } },
    mutating: true,
    handler: async (_input, context) => {
      // A handler that never removes what it adds to its signal: it must die with the call.
      context.signal.addEventListener("abort", () => {});
      await Promise.race([gate, new Promise((resolve) => context.signal.addEventListener("abort", resolve))]);
      return "done";
    },
  });
}

async function settleTurns(turns: number): Promise<void> {
  for (let index = 0; index < turns; index++) await new Promise((resolve) => setImmediate(resolve));
}

describe("one host signal shared by many concurrent calls", () => {
  it("holds at most one listener while 300 calls run, none after, and no listener-leak warning", async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => {
      if (warning.name === "MaxListenersExceededWarning") warnings.push(warning);
    };
    process.on("warning", onWarning);
    try {
      let open = () => {};
      const gate = new Promise<void>((resolve) => {
        open = resolve;
      });
      const registry = createRegistry({ tools: [slowTool(gate)] });
      registry.approvals.events.on("approval.requested", ({ id }) => void registry.approvals.approve(id));
      const run = registry.createRun({ store: new InMemoryRunStore(), permissions: { approval: "destructive" } });
      const conversation = new AbortController();
      const results = Array.from({ length: CALLS }, (_, n) =>
        run.call("slow", { n }, { signal: conversation.signal, callId: `c${n}` }),
      );
      await settleTurns(20);
      const during = getEventListeners(conversation.signal, "abort").length;
      open();
      const settled = await Promise.all(results);
      expect(settled.filter((result) => result.ok)).toHaveLength(CALLS);
      await settleTurns(5);
      expect(during).toBeLessThanOrEqual(1);
      expect(getEventListeners(conversation.signal, "abort")).toHaveLength(0);
      expect(warnings.map((warning) => warning.stack)).toEqual([]);
      await registry.close();
    } finally {
      process.off("warning", onWarning);
    }
  });

  it("positive control: aborting the shared signal aborts every call in flight", async () => {
    const registry = createRegistry({ tools: [slowTool(new Promise(() => {}))] });
    const run = registry.createRun();
    const conversation = new AbortController();
    const results = Array.from({ length: 50 }, (_, n) => run.call("slow", { n }, { signal: conversation.signal }));
    await settleTurns(5);
    conversation.abort();
    const settled = await Promise.all(results);
    expect(settled.map((result) => (result.ok ? "ok" : result.error.code))).toEqual(Array(50).fill("aborted"));
    expect(getEventListeners(conversation.signal, "abort")).toHaveLength(0);
    await registry.close();
  });
});
