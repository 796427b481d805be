import { MAX_CALL_ID_LENGTH } from "../tool/call-id-limit.js";
import { settleThenable } from "../tool/settle-thenable.js";
import type { ToolCallErrorInfo } from "../tool/tool-call-result.js";
import { randomRunId } from "./random-run-id.js";
import type { RunState } from "./run-state.js";
import type { RunStore } from "./run-store.js";

export { MAX_CALL_ID_LENGTH };

/**
 * How long a claim holds without renewal, in ms, unless the store says otherwise
 * (`RunStore.callClaimTtlMs`). A process that dies while a call runs leaves its
 * claim this long at most, so a later call reusing the id (providers that number calls per
 * response reuse `call_0` every turn) is refused for no longer than this.
 */
export const CALL_CLAIM_TTL_MS = 30_000;

/** How long a call waits for its claim before it is refused, in ms: a store that never answers must not hold it. */
const CLAIM_WAIT_MS = 10_000;

/** A claim held for one call: ends it (stops renewing, gives it up in the store). */
export interface HeldCallClaim {
  readonly release: () => void;
}

/**
 * The answer to a call id over {@link MAX_CALL_ID_LENGTH}: the id is the provider's or the host's,
 * not the model's arguments, so the tool is not run and the result carries the id cut.
 */
export function oversizedCallIdError(name: string, callId: string): ToolCallErrorInfo {
  return {
    code: "invalid_call_id",
    message: `The call id has ${callId.length} characters, over the ${MAX_CALL_ID_LENGTH} a call id may have; "${name}" was not run.`,
    hint: "Call the tool again; each tool call needs a short id of its own.",
  };
}

/** {@link oversizedCallIdError}'s id as results and events carry it: cut, and marked as cut. */
export function cutCallId(callId: string): string {
  return callId.length > MAX_CALL_ID_LENGTH ? `${callId.slice(0, MAX_CALL_ID_LENGTH)}…` : callId;
}

/**
 * Claims a host-given call id in the run's store while the call runs, so one provider call that
 * reaches two processes continuing the same run (a retried webhook, two replicas) runs in one of
 * them; the other gets `duplicate_call_id`. The claim is renewed every third of its time while the
 * call runs and given up when it ends. A store without `claimCall` claims nothing (as before).
 *
 * Resolves the held claim, or the error to answer with: `duplicate_call_id` when another call
 * holds the id, and, when the store failed to answer, the store's code (`redis_timeout`) or
 * `internal_error`: the tool is not run without the claim, since running it might run it twice.
 */
export async function claimCallId(
  store: RunStore<RunState> | undefined,
  runId: string,
  name: string,
  callId: string,
): Promise<HeldCallClaim | ToolCallErrorInfo> {
  if (store?.claimCall === undefined) return { release: () => undefined };
  const claim = { token: randomRunId(), ttlMs: store.callClaimTtlMs ?? CALL_CLAIM_TTL_MS };
  let claimed: unknown;
  try {
    claimed = await withinClaimWait(() => store.claimCall?.(runId, callId, claim));
  } catch (error) {
    // The claim may still land after this (a Redis command queued behind a pause): given up at once
    // with its token, else it would hold the id for its whole lease while nothing runs. A store's
    // commands on one connection run in order, so this release follows the late claim.
    giveUp(store, runId, callId, claim.token);
    const code = typeof error === "object" && error !== null && (error as { code?: unknown }).code === "redis_timeout";
    return {
      code: code ? "redis_timeout" : "internal_error",
      message: `The run's store did not confirm that no other process is running call "${callId.slice(0, 200)}"; "${name}" was not run.`,
      hint: "Try the call again in a few seconds.",
    };
  }
  if (claimed !== true) {
    return {
      code: "duplicate_call_id",
      message: `Another call with the id "${callId.slice(0, 200)}" is running for this run (in this or another process); this one was not run.`,
      hint: "Each tool call needs its own id; the other call's result answers this id.",
    };
  }
  // Renewed while the call runs; a renewal that fails (a store that restarted empty) is left to the
  // save after the call to report, as it reports every other loss of the run's state.
  const renew = setInterval(() => {
    withinClaimWait(() => store.claimCall?.(runId, callId, claim)).catch(() => undefined);
  }, claim.ttlMs / 3);
  (renew as { unref?: () => void }).unref?.();
  let released = false;
  return {
    release: () => {
      if (released) return;
      released = true;
      clearInterval(renew);
      giveUp(store, runId, callId, claim.token);
    },
  };
}

/** Gives up a claim, best effort: a store that fails leaves it to lapse with its lease. */
function giveUp(store: RunStore<RunState>, runId: string, callId: string, token: string): void {
  withinClaimWait(() => store.releaseCall?.(runId, callId, token)).catch(() => undefined);
}

/**
 * Longest time a claim is kept (and renewed) after its call answered while the tool's handler goes
 * on (it ignored the call's abort signal: the caller's, or `run.close`), in ms. Until then a second
 * process must not run the same call beside it; a handler that never settles must not lock the id
 * for good.
 */
export const MAX_CLAIM_HOLD_AFTER_ANSWER_MS = 600_000;

/** A call's hold on its id in a run: {@link RunCallIdClaims.enter}'s answer. */
export interface CallIdHold {
  /**
   * Ends this call's hold once `running` settles (the handler still going after the call
   * answered), or at once; at most {@link MAX_CLAIM_HOLD_AFTER_ANSWER_MS} later.
   */
  readonly leave: (running?: Promise<unknown>) => void;
}

/**
 * The call ids one run holds in its store, re-entrant within the run: a call whose id this run
 * already holds (a tool passing its own `context.callId` to a nested call, or the host calling one
 * id twice at once in one run) shares that claim, as it would run without a store; only another
 * run (another process, or another copy of the run) is refused. The store is claimed once per id
 * and released when the last call holding it leaves.
 */
export class RunCallIdClaims {
  private readonly held = new Map<string, { users: number; claim: Promise<HeldCallClaim | ToolCallErrorInfo> }>();

  constructor(
    private readonly store: RunStore<RunState> | undefined,
    private readonly runId: string,
  ) {}

  /** Holds `callId` for a call of `name`: the hold, or the error to answer with (the tool not run). */
  async enter(name: string, callId: string): Promise<CallIdHold | ToolCallErrorInfo> {
    if (this.store?.claimCall === undefined) return { leave: () => undefined };
    let entry = this.held.get(callId);
    if (entry === undefined) {
      entry = { users: 0, claim: claimCallId(this.store, this.runId, name, callId) };
      this.held.set(callId, entry);
    }
    const shared = entry;
    shared.users++;
    const claim = await shared.claim;
    let left = false;
    const end = () => {
      if (left) return;
      left = true;
      if (--shared.users > 0) return;
      if (this.held.get(callId) === shared) this.held.delete(callId);
      if (!("code" in claim)) claim.release();
    };
    if ("code" in claim) {
      end();
      return claim;
    }
    return {
      leave: (running) => {
        if (running === undefined) return end();
        const bound = setTimeout(end, MAX_CLAIM_HOLD_AFTER_ANSWER_MS);
        (bound as { unref?: () => void }).unref?.();
        running.then(
          () => {
            clearTimeout(bound);
            end();
          },
          () => {
            clearTimeout(bound);
            end();
          },
        );
      },
    };
  }
}

/**
 * A store call's answer, settled level by level (a thenable resolving to itself would starve the
 * timer) and within {@link CLAIM_WAIT_MS}; a synchronous throw is a rejection.
 */
async function withinClaimWait(ask: () => unknown): Promise<unknown> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error("the run's store did not answer the call claim")), CLAIM_WAIT_MS);
  });
  try {
    const answer = Promise.resolve().then(async () => (await settleThenable<unknown>(ask())).value);
    return await Promise.race([answer, late]);
  } finally {
    clearTimeout(timer);
  }
}
