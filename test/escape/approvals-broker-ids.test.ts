/**
 * Red team round 23: the in-memory approval broker takes request ids from the host (`createId`).
 * An id made from a clock is the same for two calls of one step asked in the same millisecond (the
 * AI SDK and `runToolLoop` run a step's calls at once). The second request replaced the first in
 * the broker's table: the host, shown the first call by `approval.requested`, approved its id and
 * the second call ran, while the first waited until its timeout, which then made the second
 * unanswerable. An approval must approve the call that was shown, or nothing.
 */
import { type ApprovalRequest, createRegistry, InMemoryApprovalBroker } from "agent-tool-catalog";
import { describe, expect, it } from "vitest";
import { deleteNoteTool } from "../support/note-tools.js";
import { settleWithin } from "../support/settle-within.js";
import { escapeAttempt } from "./support/escape-attempt.js";

function notebook(createId: () => string) {
  const done: string[] = [];
  const approvals = new InMemoryApprovalBroker({ createId });
  const registry = createRegistry({
    approvals,
    tools: [deleteNoteTool({ onDelete: (title) => done.push(title) })],
  });
  const run = registry.createRun({ permissions: { approval: "destructive" }, approvalTimeoutMs: 2_000 });
  const shown: ApprovalRequest[] = [];
  approvals.events.on("approval.requested", (request) => shown.push(request));
  return { done, approvals, run, shown };
}

/** A clock whose two reads in one step give one millisecond. */
const sameMillisecond = () => `apr-${1_767_000_000_000}`;

describe("approval request ids the host makes", () => {
  escapeAttempt("approvals", "two calls of one step get one id: approving the call shown runs only that call", async () => {
    const { done, approvals, run, shown } = notebook(sameMillisecond);
    const controller = new AbortController();
    const calls = [
      run.call("delete_note", { title: "old draft" }, { signal: controller.signal }),
      run.call("delete_note", { title: "thesis" }, { signal: controller.signal }),
    ];
    await expect.poll(() => shown.length).toBeGreaterThan(0);
    const oldDraft = shown.find((request) => (request.input as { title: string }).title === "old draft");
    expect(oldDraft).toBeDefined();
    await approvals.approve(oldDraft?.id ?? "");
    const settled = await settleWithin(Promise.all(calls), 500, () => "pending");
    controller.abort();
    const results = await Promise.all(calls);
    expect(done).not.toContain("thesis");
    expect(done).toEqual(["old draft"]);
    expect(settled).not.toBe("pending");
    expect(results[1]).toMatchObject({ ok: false, error: { code: "approval_denied" } });
  });

  it("control: ids of their own approve each call, in any order", async () => {
    let next = 0;
    const { done, approvals, run, shown } = notebook(() => `apr-${++next}`);
    const calls = [run.call("delete_note", { title: "old draft" }), run.call("delete_note", { title: "thesis" })];
    await expect.poll(() => shown.length).toBe(2);
    for (const request of [...shown].reverse()) await approvals.approve(request.id);
    expect(await Promise.all(calls)).toMatchObject([{ ok: true }, { ok: true }]);
    expect(done).toEqual(["thesis", "old draft"]);
  });

  escapeAttempt(
    "approvals",
    "an id of a request already decided is refused: a late approval for it approves nothing new",
    async () => {
      // A host id source that restarts its counter (a per-page counter, a reset sequence): the
      // second call gets the id of the first, already approved. The approver's page still shows
      // the first request and its approve is sent again (a double click, a retried post).
      const { done, approvals, run, shown } = notebook(() => "apr-1");
      const first = run.call("delete_note", { title: "old draft" });
      await expect.poll(() => shown.length).toBe(1);
      expect(await approvals.approve("apr-1")).toBe(true);
      expect(await first).toMatchObject({ ok: true });
      const second = run.call("delete_note", { title: "thesis" });
      const lateApproval = await new Promise<boolean>((resolve) => setTimeout(() => resolve(approvals.approve("apr-1")), 50));
      expect(await second).toMatchObject({ ok: false, error: { code: "approval_denied" } });
      expect(lateApproval).toBe(false);
      expect(done).toEqual(["old draft"]);
    },
  );

  it("control: with ids of their own, a late approval of a decided request approves nothing, and the new call runs once approved", async () => {
    let next = 0;
    const { done, approvals, run, shown } = notebook(() => `apr-${++next}`);
    const first = run.call("delete_note", { title: "old draft" });
    await expect.poll(() => shown.length).toBe(1);
    expect(await approvals.approve("apr-1")).toBe(true);
    await first;
    const second = run.call("delete_note", { title: "thesis" });
    await expect.poll(() => shown.length).toBe(2);
    expect(await approvals.approve("apr-1")).toBe(false);
    expect(done).toEqual(["old draft"]);
    expect(await approvals.approve("apr-2")).toBe(true);
    expect(await second).toMatchObject({ ok: true });
    expect(done).toEqual(["old draft", "thesis"]);
  });

  it("control: the memory of decided ids is bounded: the oldest of 10,001 decided ids may be used again", async () => {
    // What `createId` returns next: "first", then 10,000 others, then "first" again.
    let made = "first";
    const approvals = new InMemoryApprovalBroker({ createId: () => made });
    const tool = { name: "t", description: "", inputSchema: {} };
    const ask = () => approvals.request({ runId: "r", callId: "c", tool, input: {} } as never, { timeoutMs: 60_000 });
    for (let index = 0; index <= 10_000; index++) {
      made = index === 0 ? "first" : `later-${index}`;
      const waiting = ask();
      approvals.deny(made);
      await waiting;
    }
    made = "first";
    const again = ask();
    expect(approvals.pending().map((pending) => pending.id)).toEqual(["first"]);
    approvals.deny("first");
    expect(await again).toMatchObject({ decision: "denied", resolvedBy: "host" });
    made = "later-10000";
    await expect(ask()).rejects.toThrow(/a request already decided/);
  });
});
