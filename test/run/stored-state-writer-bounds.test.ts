/**
 * A run never saves a state its own `openRun` refuses (the run would be lost): stop 56's reader
 * bounds on a stored state (`MAX_STORED_INDEX_CHARS`, pending approvals' ids) are applied when the
 * state is written too. Real registry, real in-memory store, real approval broker.
 */
import { createRegistry, defineTool, InMemoryApprovalBroker, InMemoryRunStore, openRun } from "agent-tool-catalog";
import { describe, expect, it } from "vitest";

const LISTED = 34_000;

function listedTool(index: number) {
  // Names of 60 characters and descriptions of 60: each index row is ~125 characters, so 34,000
  // rows are over the 4 MiB bound a stored index may hold.
  return defineTool({
    name: `listed_${String(index).padStart(53, "0")}`,
    description: `Tool number ${index} of the listed set, kept out of the list.`.padEnd(60, "."),
    tags: ["builtin"],
    inputSchema: { type: "object", properties: {} },
    handler: () => "ok",
  });
}

describe("what a run saves, openRun opens", () => {
  it("a listing run whose index is over the stored bound saves no index and opens again with the same index", async () => {
    const registry = createRegistry({ tools: Array.from({ length: LISTED }, (_, index) => listedTool(index)) });
    const store = new InMemoryRunStore();
    const run = registry.createRun({ environment: {}, store, runId: "huge-index" });
    const index = run.systemPromptIndex();
    expect(index?.length).toBeGreaterThan(4 * 1024 * 1024);
    expect(index).toContain(`- ${listedTool(LISTED - 1).name}: `);
    await run.save();
    const reopened = await openRun(registry, { store, runId: "huge-index", environment: {} });
    expect(reopened.systemPromptIndex()).toBe(index);
  }, 120_000);

  it("control: an index within the bound is saved and kept as it was, even after the registry changed", async () => {
    const registry = createRegistry({ tools: Array.from({ length: 20 }, (_, index) => listedTool(index)) });
    const store = new InMemoryRunStore();
    const run = registry.createRun({ environment: {}, store, runId: "small-index" });
    const index = run.systemPromptIndex();
    expect(run.toJSON().toolboxIndex).toBe(index);
    await run.save();
    registry.register(listedTool(20));
    const reopened = await openRun(registry, { store, runId: "small-index", environment: {} });
    expect(reopened.systemPromptIndex()).toBe(index);
  });

  it("a pending approval whose broker-made id is over 1,024 characters is not saved; one within is", async () => {
    let next = 0;
    const ids = ["a".repeat(1025), "short-id"];
    const approvals = new InMemoryApprovalBroker({ createId: () => ids[next++] as string });
    const tool = defineTool({
      name: "deploy",
      description: "Deploys.",
      inputSchema: { type: "object", properties: {} },
      mutating: true,
      handler: () => "deployed",
    });
    const registry = createRegistry({ tools: [tool], approvals });
    const store = new InMemoryRunStore();
    const run = registry.createRun({ store, runId: "long-approval", permissions: { approval: "destructive" } });
    const requested: string[] = [];
    registry.approvals.events.on("approval.requested", ({ id }) => requested.push(id));
    const first = run.call("deploy", {}, { callId: "call-1" });
    const second = run.call("deploy", {}, { callId: "call-2" });
    await expect.poll(() => requested.length).toBe(2);
    expect(run.toJSON().pendingApprovals.map((pending) => pending.callId)).toEqual(["call-2"]);
    await run.save();
    const stored = await store.load("long-approval");
    expect(stored?.state.pendingApprovals.map((pending) => pending.approvalId)).toEqual(["short-id"]);
    // openRun takes the saved state (it refuses a 1,025-character approval id).
    await expect(openRun(createRegistry({ tools: [tool] }), { store, runId: "long-approval" })).resolves.toBeDefined();
    for (const id of requested) approvals.deny(id);
    await Promise.all([first, second]);
  });
});
