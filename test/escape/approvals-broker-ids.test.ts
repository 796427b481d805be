/**
 * Red team round 23: the in-memory approval broker takes request ids from the host (`createId`).
 * An id made from a clock is the same for two calls of one step asked in the same millisecond (the
 * AI SDK and `runToolLoop` run a step's calls at once). The second request replaced the first in
 * the broker's table: the host, shown the first call by `approval.requested`, approved its id and
 * the second call ran, while the first waited until its timeout, which then made the second
 * unanswerable. An approval must approve the call that was shown, or nothing.
 */
import { type ApprovalRequest, createRegistry, defineTool, InMemoryApprovalBroker } from "agent-tool-catalog";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { escapeAttempt } from "./support/escape-attempt.js";

function notebook(createId: () => string) {
  const done: string[] = [];
  const approvals = new InMemoryApprovalBroker({ createId });
  const registry = createRegistry({
    approvals,
    tools: [
      defineTool({
        name: "delete_note",
        description: "Delete a note.",
        mutating: true,
        inputSchema: z.object({ title: z.string() }),
        handler: ({ title }) => {
          done.push(title);
          return `deleted ${title}`;
        },
      }),
    ],
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
    const settled = await Promise.race([Promise.all(calls), new Promise((resolve) => setTimeout(resolve, 500, "pending"))]);
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
});
