/**
 * Red team round 35: approval answers that come late, twice, or from a broker that changes its
 * mind. Earlier rounds made a broker that never answers harmless (round 5, round 19); here the
 * broker does answer, at the wrong time:
 *
 * - a custom broker that keeps the request and resolves it `approved` after the call's signal
 *   fired, or after `run.close()`: the call settled `aborted`, and the tool never runs later;
 * - the in-memory broker answered twice (deny then approve, approve then deny, two approvals at
 *   once): the first answer decides, the second is refused (`false`), the tool runs at most once;
 * - a broker whose promise resolves `approved` and then, synchronously after, throws from a
 *   listener of its own `approval.resolved` event: the call is the approval's, no stray error.
 *
 * Control: an approval given in time runs the tool once.
 */
import {
  type ApprovalBroker,
  type ApprovalResolution,
  createRegistry,
  defineTool,
  EventBus,
  InMemoryApprovalBroker,
} from "agent-tool-catalog";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { failOnStrayErrors } from "../support/stray-errors.js";

const ran: string[] = [];
const act = defineTool({
  name: "act",
  description: "Does something that needs approval.",
  tier: "core",
  mutating: true,
  inputSchema: z.object({}),
  handler: async () => {
    ran.push("act");
    return "done";
  },
});
const ALL = { sandbox: "unrestricted", approval: "all" } as const;
const approved: ApprovalResolution = { id: "kept-1", decision: "approved", reason: undefined, resolvedBy: "host" };

failOnStrayErrors();
afterEach(() => {
  ran.length = 0;
});

/** A broker that keeps each request's resolve for the test to call whenever it likes. */
function keepingBroker() {
  const answers: Array<(resolution: ApprovalResolution) => void> = [];
  const broker: ApprovalBroker = {
    events: new EventBus(),
    request: () => new Promise<ApprovalResolution>((resolve) => answers.push(resolve)),
    approve: () => false,
    deny: () => false,
    pending: () => [],
  };
  return { broker, answers };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 50));

describe("an approval that comes after the call ended", () => {
  it("after the call's signal fired: the call is aborted and the late approval runs nothing", async () => {
    const { broker, answers } = keepingBroker();
    const run = createRegistry({ tools: [act], approvals: broker }).createRun({ permissions: ALL });
    const controller = new AbortController();
    const pending = run.call("act", {}, { signal: controller.signal });
    while (answers.length === 0) await settle();
    controller.abort();
    const result = await pending;
    expect(result).toMatchObject({ ok: false, error: { code: "aborted" } });
    answers[0]?.(approved);
    await settle();
    expect(ran).toEqual([]);
  });

  it("after run.close(): the call is aborted and the late approval runs nothing", async () => {
    const { broker, answers } = keepingBroker();
    const run = createRegistry({ tools: [act], approvals: broker }).createRun({ permissions: ALL });
    const pending = run.call("act", {});
    while (answers.length === 0) await settle();
    const closing = run.close();
    const result = await pending;
    await closing;
    expect(result.ok).toBe(false);
    answers[0]?.(approved);
    await settle();
    expect(ran).toEqual([]);
  });

  it("control: the same broker approving in time runs the tool once", async () => {
    const { broker, answers } = keepingBroker();
    const run = createRegistry({ tools: [act], approvals: broker }).createRun({ permissions: ALL });
    const pending = run.call("act", {});
    while (answers.length === 0) await settle();
    answers[0]?.(approved);
    answers[0]?.({ id: "kept-1", decision: "denied", reason: "changed my mind", resolvedBy: "host" });
    expect((await pending).ok).toBe(true);
    expect(ran).toEqual(["act"]);
  });
});

describe("the in-memory broker answered twice", () => {
  async function waitingCall(order: Array<"approve" | "deny">) {
    const approvals = new InMemoryApprovalBroker();
    const answers: Array<boolean | Promise<boolean>> = [];
    approvals.events.on("approval.requested", (request) => {
      // Both answers at once, in the same turn, as two reviewers clicking together.
      for (const answer of order)
        answers.push(answer === "approve" ? approvals.approve(request.id) : approvals.deny(request.id, "no"));
    });
    const run = createRegistry({ tools: [act], approvals }).createRun({ permissions: ALL });
    const result = await run.call("act", {});
    return { result, answers: await Promise.all(answers), pending: await approvals.pending() };
  }

  it("deny then approve: denied, the approval refused, the tool not run", async () => {
    const { result, answers, pending } = await waitingCall(["deny", "approve"]);
    expect(result).toMatchObject({ ok: false, error: { code: "approval_denied" } });
    expect(answers).toEqual([true, false]);
    expect(pending).toEqual([]);
    expect(ran).toEqual([]);
  });

  it("approve then deny, and approve twice: run once, the second answer refused", async () => {
    const first = await waitingCall(["approve", "deny"]);
    expect(first.result.ok).toBe(true);
    expect(first.answers).toEqual([true, false]);
    const second = await waitingCall(["approve", "approve"]);
    expect(second.result.ok).toBe(true);
    expect(second.answers).toEqual([true, false]);
    expect(ran).toEqual(["act", "act"]);
  });

  it("a throwing approval.resolved listener: the call still follows the answer, no stray error", async () => {
    const approvals = new InMemoryApprovalBroker();
    approvals.events.on("approval.requested", (request) => {
      void approvals.approve(request.id);
    });
    approvals.events.on("approval.resolved", () => {
      throw new Error("listener boom");
    });
    const run = createRegistry({ tools: [act], approvals, onListenerError: () => {} }).createRun({ permissions: ALL });
    expect((await run.call("act", {})).ok).toBe(true);
    expect(ran).toEqual(["act"]);
  });
});
