// Red team round 5: a custom approval broker whose request never settles and ignores its signal
// (a remote broker on a hung connection) kept run.call pending forever: an aborted signal,
// run.close() and approvalTimeoutMs all had no effect. The run now stops waiting by itself.
import { type ApprovalBroker, createRegistry, defineTool, EventBus, InMemoryApprovalBroker } from "agent-tool-catalog";
import { describe, expect, it } from "vitest";
import { z } from "zod";

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

function broker(request: ApprovalBroker["request"]): ApprovalBroker {
  return { events: new EventBus(), request, approve: () => false, deny: () => false, pending: () => [] };
}

const silent = broker(() => new Promise(() => {}));
const ALL = { sandbox: "unrestricted", approval: "all" } as const;

describe("a broker that never answers cannot hang a call", () => {
  it("the call's abort signal settles it as aborted, and the tool never runs", async () => {
    ran.length = 0;
    const run = createRegistry({ tools: [act], approvals: silent }).createRun({ permissions: ALL });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const result = await run.call("act", {}, { signal: controller.signal });
    expect(result).toMatchObject({ ok: false, error: { code: "aborted" } });
    expect(ran).toEqual([]);
  });

  it("run.close() settles a call waiting on it", async () => {
    const run = createRegistry({ tools: [act], approvals: silent }).createRun({ permissions: ALL });
    const pending = run.call("act", {});
    setTimeout(() => void run.close(), 50);
    expect(await pending).toMatchObject({ ok: false, error: { code: "aborted" } });
  });

  it("approvalTimeoutMs denies it shortly after the timeout even if the broker ignores it", async () => {
    ran.length = 0;
    const run = createRegistry({ tools: [act], approvals: silent }).createRun({ permissions: ALL, approvalTimeoutMs: 100 });
    const started = performance.now();
    const result = await run.call("act", {});
    expect(result).toMatchObject({
      ok: false,
      error: { code: "approval_denied", message: expect.stringContaining("nobody answered") },
    });
    // "nobody answered" says the 100 ms timeout denied it (the broker never answers, so without it
    // the call waits for ever): the bound is a hang guard, generous for a loaded machine.
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(ran).toEqual([]);
  });

  it("positive controls: a broker that answers is obeyed; the in-memory broker's own timeout still speaks", async () => {
    ran.length = 0;
    const yes = broker(async () => ({ id: "1", decision: "approved", reason: undefined, resolvedBy: "host" }) as const);
    const approved = await createRegistry({ tools: [act], approvals: yes })
      .createRun({ permissions: ALL })
      .call("act", {});
    expect(approved).toMatchObject({ ok: true, output: "done" });
    expect(ran).toEqual(["act"]);
    const memory = new InMemoryApprovalBroker();
    const timedOut = await createRegistry({ tools: [act], approvals: memory })
      .createRun({ permissions: ALL, approvalTimeoutMs: 50 })
      .call("act", {});
    expect(timedOut).toMatchObject({ ok: false, error: { code: "approval_denied" } });
    if (timedOut.ok) return;
    expect(timedOut.error.message).not.toContain("nobody answered");
  });

  it("a broker whose answer is a thenable resolving to itself cannot freeze the process (round 8)", async () => {
    ran.length = 0;
    // `await` would follow it in microtasks forever: no timer, abort or timeout could fire again.
    const looping: { then: (resolve: (value: unknown) => void) => void } = {
      // biome-ignore lint/suspicious/noThenProperty: the hostile thenable is the point of the test.
      then: (resolve) => resolve(looping),
    };
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 1);
    try {
      const run = createRegistry({ tools: [act], approvals: broker(() => looping as never) }).createRun({
        permissions: ALL,
        approvalTimeoutMs: 60_000,
      });
      const result = await run.call("act", {});
      expect(result).toMatchObject({ ok: false });
      expect(ran).toEqual([]);
      expect(ticks).toBeGreaterThan(0);
    } finally {
      clearInterval(ticker);
    }
    // Control: an answer wrapped in two thenables is followed and obeyed.
    const approval = { id: "1", decision: "approved", reason: undefined, resolvedBy: "host" } as const;
    // biome-ignore lint/suspicious/noThenProperty: thenables are the point of the test.
    const thenable = (then: (resolve: (v: unknown) => void) => void) => Object.defineProperty({}, "then", { value: then });
    const wrapped = thenable((resolve) => resolve(thenable((inner) => inner(approval))));
    const obeyed = await createRegistry({ tools: [act], approvals: broker(() => wrapped as never) })
      .createRun({ permissions: ALL })
      .call("act", {});
    expect(obeyed).toMatchObject({ ok: true, output: "done" });
    expect(ran).toEqual(["act"]);
  });
});
