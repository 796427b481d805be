import { formatWait } from "../errors/format-wait.js";
import { hostMadeId } from "../errors/host-made-id.js";
import { EventBus } from "../events/event-bus.js";
import type {
  ApprovalBroker,
  ApprovalEvents,
  ApprovalRequest,
  ApprovalResolution,
  ApprovalWaitOptions,
} from "./approval-broker.js";
import { type ApprovalDecideOptions, type ApprovalDecisionResult, approvalArgumentsDigest } from "./approval-decision.js";
import { checkApprovalTimeout } from "./check-approval-timeout.js";

/**
 * Options of {@link InMemoryApprovalBroker}.
 *
 * @public
 */
export interface InMemoryApprovalBrokerOptions {
  /**
   * How long a request waits before it is denied: a whole number of ms from 1 to 2^31 - 1 (a timer holds it; the Redis broker's PEXPIRE takes no fraction), on every broker and on `createRun`.
   * @defaultValue 300000 (five minutes)
   */
  readonly timeoutMs?: number;
  /** The clock, in ms since the epoch. @defaultValue `Date.now` */
  readonly now?: () => number;
  /**
   * Makes request ids: each must be a non-empty string no pending request has (an id from a
   * clock repeats for two calls of one step), nor one of the last 10,000 decided requests (an
   * approval sent late for a decided request would approve the new one). A request given a
   * repeated id is refused, so an approval always names one call.
   * @defaultValue `crypto.randomUUID`
   */
  readonly createId?: () => string;
}

/**
 * How many decided request ids are remembered to refuse a `createId` repeating one. Memory stays
 * bounded (ids of that many requests, oldest forgotten first); the window covers every late
 * answer a person could still send for a request decided among the last 10,000.
 */
const REMEMBERED_DECIDED_IDS = 10_000;

interface Pending {
  readonly request: ApprovalRequest;
  readonly settle: (resolution: ApprovalResolution) => void;
}

/**
 * The default {@link ApprovalBroker}: requests wait in memory until `approve`, `deny`, their
 * timeout (denied, so an unattended run fails closed) or the abort of their call.
 * @public
 */
export class InMemoryApprovalBroker implements ApprovalBroker {
  /** Events `approval.requested` and `approval.resolved`. */
  readonly events = new EventBus<ApprovalEvents>();
  private readonly waiting = new Map<string, Pending>();
  /**
   * Ids of the most recently decided requests, oldest first (a Map keeps insertion order), each
   * with whether its deadline decided it (so `decide` answers `"expired"`, not `"decided"`).
   */
  private readonly decided = new Map<string, "timeout" | "other">();
  private readonly timeoutMs: number;
  private readonly now: () => number;
  private readonly createId: () => string;

  constructor(options: InMemoryApprovalBrokerOptions = {}) {
    checkApprovalTimeout(options.timeoutMs, "timeoutMs", "InMemoryApprovalBroker");
    this.timeoutMs = options.timeoutMs ?? 300_000;
    this.now = options.now ?? Date.now;
    this.createId = options.createId ?? (() => crypto.randomUUID());
  }

  /** Asks for a decision and waits for it. */
  request(
    input: Omit<ApprovalRequest, "id" | "requestedAt" | "expiresAt">,
    options: ApprovalWaitOptions = {},
  ): Promise<ApprovalResolution> {
    checkApprovalTimeout(options.timeoutMs, "timeoutMs", "InMemoryApprovalBroker.request");
    const timeoutMs = options.timeoutMs ?? this.timeoutMs;
    const requestedAt = this.now();
    // A repeated id replaced the pending request in the table: approving the call the host was
    // shown (by `approval.requested`) ran the other one. Refused, the call answers that approvals
    // are unavailable and does nothing; the request already waiting keeps its id. An id of a
    // request already decided is refused too: an approval sent late for that request (the host's
    // page still showing it) would otherwise approve this call, which nobody was shown.
    let id: string;
    try {
      const made = this.createId();
      id = hostMadeId(
        made,
        { has: (candidate) => this.waiting.has(candidate) || this.decided.has(candidate) },
        {
          where: "InMemoryApprovalBroker",
          item: "request",
          holder: typeof made === "string" && this.decided.has(made) ? "a request already decided" : "a request still pending",
          outcome: "The call was not sent for approval.",
        },
      );
    } catch (error) {
      return Promise.reject(error);
    }
    const request: ApprovalRequest = Object.freeze({
      ...input,
      id,
      requestedAt,
      expiresAt: requestedAt + timeoutMs,
    });
    return new Promise<ApprovalResolution>((resolve) => {
      const { signal } = options;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const onAbort = () => settle({ id: request.id, decision: "denied", reason: "the call was cancelled", resolvedBy: "abort" });
      const settle = (resolution: ApprovalResolution) => {
        if (!this.waiting.delete(request.id)) return;
        this.remember(request.id, resolution.resolvedBy === "timeout" ? "timeout" : "other");
        if (timer !== undefined) clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        // Frozen: one payload for every listener (and the registry's bus after them).
        this.events.emit("approval.resolved", Object.freeze({ ...resolution, request }));
        resolve(resolution);
      };
      this.waiting.set(request.id, { request, settle });
      timer = setTimeout(
        () =>
          settle({
            id: request.id,
            decision: "denied",
            reason: `nobody approved it within ${formatWait(timeoutMs)}`,
            resolvedBy: "timeout",
          }),
        timeoutMs,
      );
      // The timer stays referenced: a script whose only pending work is a call waiting for
      // approval must stay alive until the timeout denies it, not exit with the call unsettled.
      if (signal?.aborted === true) {
        onAbort();
        return;
      }
      signal?.addEventListener("abort", onAbort, { once: true });
      this.events.emit("approval.requested", request);
    });
  }

  /** Keeps `id` among the decided ones, forgetting the oldest past the bound. */
  private remember(id: string, how: "timeout" | "other"): void {
    this.decided.set(id, how);
    if (this.decided.size > REMEMBERED_DECIDED_IDS) {
      for (const oldest of this.decided.keys()) {
        this.decided.delete(oldest);
        break;
      }
    }
  }

  /**
   * Approves or denies a pending request, saying why not when it does not: `"unknown"` (no such
   * request, or decided so long ago it is forgotten), `"decided"` (decided already), `"expired"`
   * (its timeout denied it), `"digest_mismatch"` (`argumentsDigest` given, and the request is for
   * other arguments: it stays pending). The same answers as `RedisApprovalBroker.decide`.
   *
   * @example
   * ```ts
   * import { InMemoryApprovalBroker } from "agent-tool-catalog";
   *
   * const broker = new InMemoryApprovalBroker();
   * const waiting = broker.request({ runId: "r1", callId: "c1", toolName: "deploy", input: {}, mutating: true, policy: "destructive" });
   * const request = broker.pending()[0]!;
   * console.log(broker.decide(request.id, "approved")); // { ok: true }
   * console.log(broker.decide(request.id, "denied")); // { ok: false, reason: "decided" }
   * console.log((await waiting).decision); // "approved"
   * ```
   */
  decide(id: string, decision: "approved" | "denied", options: ApprovalDecideOptions = {}): ApprovalDecisionResult {
    const pending = this.waiting.get(id);
    if (pending === undefined) {
      const how = this.decided.get(id);
      return { ok: false, reason: how === undefined ? "unknown" : how === "timeout" ? "expired" : "decided" };
    }
    if (options.argumentsDigest !== undefined && options.argumentsDigest !== approvalArgumentsDigest(pending.request)) {
      return { ok: false, reason: "digest_mismatch" };
    }
    pending.settle(
      decision === "approved"
        ? { id, decision, reason: undefined, resolvedBy: "host" }
        : { id, decision, reason: options.reason ?? "denied by the user", resolvedBy: "host" },
    );
    return { ok: true };
  }

  /** Approves a pending request; false when it is not pending ({@link InMemoryApprovalBroker.decide} says why). */
  approve(id: string): boolean {
    return this.decide(id, "approved").ok;
  }

  /** Denies a pending request; false when it is not pending ({@link InMemoryApprovalBroker.decide} says why). */
  deny(id: string, reason?: string): boolean {
    return this.decide(id, "denied", reason === undefined ? {} : { reason }).ok;
  }

  /** Pending requests, oldest first. */
  pending(filter: { readonly runId?: string } = {}): ApprovalRequest[] {
    const out: ApprovalRequest[] = [];
    for (const { request } of this.waiting.values()) {
      if (filter.runId === undefined || request.runId === filter.runId) out.push(request);
    }
    return out;
  }
}
