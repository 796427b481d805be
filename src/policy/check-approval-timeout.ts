import { MAX_TIMER_DELAY_MS } from "../errors/check-number-option.js";
import { ConfigurationError } from "../errors/configuration-error.js";

export { MAX_TIMER_DELAY_MS };

/**
 * Checks an approval timeout: a finite whole number of ms in 1..2^31-1 (a larger or non-finite
 * delay would make `setTimeout` fire after 1 ms, denying at once).
 * @throws ConfigurationError `invalid_approval_timeout` naming `field`.
 */
export function checkApprovalTimeout(value: unknown, field: string): void {
  if (value === undefined) return;
  if (typeof value !== "number" || !Number.isFinite(value) || value < 1 || value > MAX_TIMER_DELAY_MS) {
    throw new ConfigurationError(
      "invalid_approval_timeout",
      `${field} must be a finite number of milliseconds from 1 to ${MAX_TIMER_DELAY_MS}; got ${typeof value === "number" ? String(value) : typeof value}.`,
      { data: { field } },
    );
  }
}
