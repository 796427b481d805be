import { ConfigurationError } from "../errors/configuration-error.js";
import type { CreateRunOptions, Run } from "../run/run.js";
import type { RunState } from "../run/run-state.js";
import type { RunStore } from "../run/run-store.js";
import { settleThenable } from "../tool/settle-thenable.js";
import type { Registry } from "./registry.js";

/**
 * Options of {@link openRun}: `createRun`'s, with the store and the run's id required.
 *
 * @public
 */
export type OpenRunOptions = Omit<CreateRunOptions, "state" | "store" | "storeRevision" | "runId" | "activation"> & {
  /** Where the run lives. */
  readonly store: RunStore<RunState>;
  /** The run (conversation) to continue or start. */
  readonly runId: string;
};

/**
 * Continues the run `runId` from `store` in this process (any process: the state holds what the
 * run needs), or starts it there when nothing is stored. The run saves itself to the store after
 * every call, checking the revision it was loaded at.
 *
 * @example
 * ```ts
 * const store = new InMemoryRunStore(); // RedisRunStore from agent-tool-catalog/redis across processes
 * const run = await openRun(registry, { store, runId: "conversation-42" });
 * // Calls that a dead process left waiting for approval get their results now.
 * const interrupted = await run.settleInterrupted();
 * ```
 * @public
 */
export async function openRun(registry: Registry, options: OpenRunOptions): Promise<Run> {
  const { store, runId, ...rest } = options;
  // Settled level by level: a store's thenable resolving to itself would freeze the process, not fail.
  const { value: stored } = await settleThenable<Awaited<ReturnType<typeof store.load>>>(store.load(runId));
  if (stored === undefined) return registry.createRun({ ...rest, runId, store, storeRevision: 0 });
  // A state naming another run (a key copied or written by another program) would open as that
  // run, and its saves and call claims would go to that run's key: at a matching revision they
  // overwrite its newer state. Other defects are createRun's to name.
  const storedRunId = (stored.state as { readonly runId?: unknown } | null | undefined)?.runId;
  if (typeof storedRunId === "string" && storedRunId !== runId) {
    throw new ConfigurationError(
      "invalid_run_state",
      `Invalid run state: run ${JSON.stringify(runId)} in the store holds the state of run ${JSON.stringify(storedRunId)}; it was not opened, so nothing is saved over either run.`,
      { data: { field: "state", runId, storedRunId } },
    );
  }
  return registry.createRun({ ...rest, state: stored.state, store, storeRevision: stored.revision });
}
