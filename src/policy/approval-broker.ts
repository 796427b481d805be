import type { EventBus } from "../events/event-bus.js";

/** A call waiting for a human's decision. */
export interface ApprovalRequest {
  /** The request's id, to approve or deny it. */
  readonly id: string;
  /** The run. */
  readonly runId: string;
  /** The tool call. */
  readonly callId: string;
  /** The tool. */
  readonly toolName: string;
  /** The validated input the tool would run with. */
  readonly input: unknown;
  /** Whether the tool can change its environment. */
  readonly mutating: boolean;
  /** Which policy asked: `"destructive"` (a mutating call) or `"all"` (every call). */
  readonly policy: "destructive" | "all";
  /** When it was asked, in ms since the epoch. */
  readonly requestedAt: number;
  /** When it is denied if nobody answers, in ms since the epoch. */
  readonly expiresAt: number;
}

/** How a request ended. */
export interface ApprovalResolution {
  /** The request's id. */
  readonly id: string;
  /** The decision. */
  readonly decision: "approved" | "denied";
  /** Why, for a denial (shown to the model). */
  readonly reason: string | undefined;
  /** Who decided: a person or host code, the timeout, or an abort of the call. */
  readonly resolvedBy: "host" | "timeout" | "abort";
}

/** Events of an approval broker. */
export interface ApprovalEvents {
  /** A call asks for approval. */
  "approval.requested": ApprovalRequest;
  /** A request was approved, denied, timed out or aborted. */
  "approval.resolved": ApprovalResolution & { readonly request: ApprovalRequest };
}

/** Options of one {@link ApprovalBroker.request}. */
export interface ApprovalWaitOptions {
  /** Aborting it withdraws the request (resolved as denied, by `"abort"`). */
  readonly signal?: AbortSignal;
  /** Overrides the broker's timeout for this request, in ms. */
  readonly timeoutMs?: number;
}

/**
 * Where approval requests wait for a decision. The in-memory default suits one process;
 * `RedisApprovalBroker` (`agent-tool-catalog/redis`) lets any process answer a request made in
 * another. `approve`, `deny` and `pending` may answer synchronously (in memory) or with a
 * promise (remote brokers): callers `await` them either way.
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
