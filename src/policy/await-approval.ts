import { type Settled, settleThenable } from "../tool/settle-thenable.js";
import type { ApprovalResolution } from "./approval-broker.js";

/** How much longer than its own timeout a broker gets to answer before the run stops waiting. */
export const APPROVAL_GRACE_MS = 1_000;

/** Longest delay `setTimeout` honours; a longer one fires at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** How waiting for an approval ended when the broker did not answer. */
export type ApprovalWaitOutcome =
  | { readonly kind: "resolved"; readonly resolution: ApprovalResolution }
  | { readonly kind: "aborted" }
  | { readonly kind: "timed_out" };

/**
 * Waits for a broker's answer without trusting the broker to keep its promises: the call's signal
 * settles it as aborted even when the broker ignores the signal (a custom broker, or a remote one
 * whose connection hangs), and when the run set a timeout the wait ends `APPROVAL_GRACE_MS` after
 * it even if the broker never times the request out. Otherwise `run.close()` and `approvalTimeoutMs`
 * could leave a call pending forever.
 */
export async function awaitApproval(
  request: () => Promise<ApprovalResolution>,
  signal: AbortSignal,
  timeoutMs: number | undefined,
): Promise<ApprovalWaitOutcome> {
  if (signal.aborted) return { kind: "aborted" };
  let onAbort: (() => void) | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await new Promise<ApprovalWaitOutcome>((resolve, reject) => {
      onAbort = () => resolve({ kind: "aborted" });
      signal.addEventListener("abort", onAbort, { once: true });
      if (timeoutMs !== undefined) {
        timer = setTimeout(() => resolve({ kind: "timed_out" }), Math.min(timeoutMs + APPROVAL_GRACE_MS, MAX_TIMER_MS));
        // The broker's own timer decides whether the process stays up for an answer, not this one.
        timer.unref?.();
      }
      let pending: Promise<Settled<ApprovalResolution>>;
      try {
        // Not Promise.resolve: a broker's thenable that resolves to itself would starve every timer.
        pending = settleThenable(request());
      } catch (error) {
        reject(error);
        return;
      }
      pending.then((settled) => resolve({ kind: "resolved", resolution: settled.value }), reject);
    });
  } finally {
    if (onAbort !== undefined) signal.removeEventListener("abort", onAbort);
    if (timer !== undefined) clearTimeout(timer);
  }
}
