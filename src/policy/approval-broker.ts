import type { ApprovalEvents, ApprovalRequest, ApprovalResolution } from "../events/approval-events.js";
import type { EventBus } from "../events/event-bus.js";

export type { ApprovalEvents, ApprovalRequest, ApprovalResolution } from "../events/approval-events.js";

/**
 * Options of one {@link ApprovalBroker.request}.
 *
 * @public
 */
export interface ApprovalWaitOptions {
  /** Aborting it withdraws the request (resolved as denied, by `"abort"`). */
  readonly signal?: AbortSignal;
  /** Overrides the broker's timeout for this request: a whole number of ms from 1 to 2^31 - 1. */
  readonly timeoutMs?: number;
}

/**
 * Where approval requests wait for a decision. The in-memory default suits one process;
 * `RedisApprovalBroker` (`agent-tool-catalog/redis`) lets any process answer a request made in
 * another. `approve`, `deny` and `pending` may answer synchronously (in memory) or with a
 * promise (remote brokers): callers `await` them either way.
 * @public
 */
export interface ApprovalBroker {
  /** Events `approval.requested` and `approval.resolved`. */
  readonly events: EventBus<ApprovalEvents>;
  /** Asks for a decision; settles when someone decides, on timeout (denied) or on abort (denied). */
  request(
    request: Omit<ApprovalRequest, "id" | "requestedAt" | "expiresAt">,
    options?: ApprovalWaitOptions,
  ): Promise<ApprovalResolution>;
  /** Approves a pending request; false when it is not pending (already decided, or unknown). */
  approve(id: string): boolean | Promise<boolean>;
  /** Denies a pending request with a reason for the model; false when it is not pending. */
  deny(id: string, reason?: string): boolean | Promise<boolean>;
  /**
   * How a request ended, when the broker still knows (remote brokers: also requests made by
   * other processes). Optional; `run.settleInterrupted()` uses it.
   */
  resolution?(id: string): Promise<ApprovalResolution | undefined>;
  /** Pending requests, oldest first, optionally of one run. */
  pending(filter?: { readonly runId?: string }): ApprovalRequest[] | Promise<ApprovalRequest[]>;
}
