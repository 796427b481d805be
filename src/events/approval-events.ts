// The approval events' payloads live in the events layer, so that catalog events can include
// them without events/ depending on policy/ (which owns the brokers that emit them).

/**
 * A call waiting for a human's decision.
 *
 * @public
 */
export interface ApprovalRequest {
  /** The request's id, to approve or deny it. */
  readonly id: string;
  /** The run. */
  readonly runId: string;
  /** The tool call. */
  readonly callId: string;
  /** The tool. */
  readonly toolName: string;
  /**
   * The validated input the tool would run with: a copy, frozen at every level, that the broker
   * and every listener share (the handler runs its own copy of the same input).
   */
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

/**
 * How a request ended.
 *
 * @public
 */
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

/**
 * Events of an approval broker.
 *
 * @public
 */
export interface ApprovalEvents {
  /** A call asks for approval. */
  "approval.requested": ApprovalRequest;
  /** A request was approved, denied, timed out or aborted. */
  "approval.resolved": ApprovalResolution & { readonly request: ApprovalRequest };
}
