import { checkNumberOption, MAX_TIMER_DELAY_MS } from "../errors/check-number-option.js";

export { MAX_TIMER_DELAY_MS };

/**
 * Checks an approval timeout: a finite whole number of ms in 1..2^31-1 (a larger or non-finite
 * delay would make `setTimeout` fire after 1 ms, denying at once).
 * @throws ConfigurationError `invalid_approval_timeout` naming `field`.
 */
export function checkApprovalTimeout(value: number | undefined, field: string, where: string): void {
  // The same rule as every numeric option; the code stays the one hosts already match on. Whole:
  // the Redis broker stores the request with PEXPIRE, which refuses a fraction, so 1.5 ms worked
  // in memory and failed every request on Redis.
  checkNumberOption(value, field, { min: 1, max: MAX_TIMER_DELAY_MS, integer: true }, where, "invalid_approval_timeout");
}
