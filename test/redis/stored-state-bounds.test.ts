/**
 * Red team round 37, follow-up: a stored run state's `toolboxIndex` and `pendingApprovals` were
 * taken as stored, of any size (each pending approval is asked of the broker by
 * `settleInterrupted`; the index goes into every system prompt). Both are now bounded like
 * `children`: `openRun` refuses a state over the bound with `invalid_run_state`.
 * Controls: a state at each bound opens, beside the refused one in the same store.
 */
import { createRegistry, openRun, type RunState } from "agent-tool-catalog";
import { RedisRunStore } from "agent-tool-catalog/redis";
import { beforeAll, describe, expect, it } from "vitest";
import { capability } from "../support/capabilities.js";
import { useRedisServer } from "../support/redis-server.js";

const MAX_PENDING = 10_000;
const MAX_INDEX_CHARS = 4 * 1024 * 1024;

function pending(count: number, callIdLength = 8) {
  return Array.from({ length: count }, (_, index) => ({
    approvalId: `appr_${index}`,
    callId: `c${index}`.padEnd(callIdLength, "x"),
    toolName: "write",
    expiresAt: Date.now() + 60_000,
  }));
}

const refused = expect.objectContaining({ name: "ConfigurationError", code: "invalid_run_state" });

const redisCapability = capability("redis");
describe.skipIf(redisCapability.missing)(redisCapability.label("stored run state: bounded index and pending approvals"), () => {
  const server = useRedisServer();
  let store: RedisRunStore;
  beforeAll(() => {
    store = new RedisRunStore({ redis: server.client(), prefix: "r37bstate" });
  });

  async function stored(runId: string, change: Partial<RunState>): Promise<void> {
    const base = createRegistry().createRun({ runId }).toJSON() as RunState;
    await store.save(runId, { ...base, ...change });
  }

  it("refuses more pending approvals than the bound; opens a state at it", async () => {
    await stored("over", { pendingApprovals: pending(MAX_PENDING + 1) });
    await stored("at", { pendingApprovals: pending(MAX_PENDING) });
    await expect(openRun(createRegistry(), { store, runId: "over" })).rejects.toEqual(refused);
    expect((await openRun(createRegistry(), { store, runId: "at" })).interruptedCalls()).toHaveLength(MAX_PENDING);
  });

  it("refuses a pending approval with a call id past MAX_CALL_ID_LENGTH", async () => {
    await stored("long-call", { pendingApprovals: pending(1, 513) });
    await stored("call-at-limit", { pendingApprovals: pending(1, 512) });
    await expect(openRun(createRegistry(), { store, runId: "long-call" })).rejects.toEqual(refused);
    expect((await openRun(createRegistry(), { store, runId: "call-at-limit" })).interruptedCalls()).toHaveLength(1);
  });

  it("refuses a toolboxIndex longer than the bound; opens one at it", async () => {
    await stored("big-index", { toolboxIndex: "x".repeat(MAX_INDEX_CHARS + 1) });
    await stored("index-at", { toolboxIndex: "x".repeat(MAX_INDEX_CHARS) });
    await expect(openRun(createRegistry(), { store, runId: "big-index" })).rejects.toEqual(refused);
    const run = await openRun(createRegistry(), { store, runId: "index-at" });
    expect(run.toJSON().toolboxIndex).toHaveLength(MAX_INDEX_CHARS);
  });
});
