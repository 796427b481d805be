import { ConfigurationError } from "./configuration-error.js";

/** The largest delay `setTimeout` and `AbortSignal.timeout` honour (2^31 - 1 ms); a larger one fires after 1 ms. */
export const MAX_TIMER_DELAY_MS = 2 ** 31 - 1;

/**
 * What a numeric option may be. A bound left out is not checked; `NaN` is never accepted.
 */
export interface NumberOptionRule {
  /** The smallest value allowed. */
  readonly min?: number;
  /** The largest value allowed. */
  readonly max?: number;
  /** `min` itself is not allowed (a value must be above it). */
  readonly aboveMin?: boolean;
  /** Only whole numbers (safe integers: `Infinity` is not one). */
  readonly integer?: boolean;
  /** `Infinity` allowed (meaning "no limit"), above `max` too. */
  readonly infinite?: boolean;
}

/**
 * A delay handed to `setTimeout` or `AbortSignal.timeout`: whole milliseconds from 1 to 2^31 - 1.
 * Node fires a larger delay (and `NaN`) after 1 ms, and `AbortSignal.timeout` throws on a fraction,
 * so either would end every call at once instead of bounding it.
 */
export const TIMER_MS: NumberOptionRule = Object.freeze({ min: 1, max: MAX_TIMER_DELAY_MS, integer: true });

/** A size or count limit: a whole number at least 1. */
export const POSITIVE_COUNT: NumberOptionRule = Object.freeze({ min: 1, integer: true });

function describe(rule: NumberOptionRule): string {
  const kind = rule.integer === true ? "a whole number" : "a number";
  const bounds: string[] = [];
  if (rule.min !== undefined) bounds.push(`${rule.aboveMin === true ? "above" : "at least"} ${rule.min}`);
  if (rule.max !== undefined) bounds.push(`at most ${rule.max}`);
  const range = bounds.length === 0 ? "" : ` ${bounds.join(" and ")}`;
  return `${kind}${range}${rule.infinite === true ? " (or Infinity)" : ""}`;
}

/**
 * Checks a numeric option of the host's configuration. `NaN`, `Infinity` and out-of-range values
 * otherwise flow into loops and scores silently (`batchSize: NaN` embedded nothing, a `NaN`
 * weight made every score `NaN`), so they fail where the option is given.
 * @param code - the error code; surfaces with a code of their own for their options
 *   (`invalid_mcp_config`) keep it, checked by the same rule.
 * @returns the value (`undefined` stays `undefined`).
 * @throws ConfigurationError `code` (`invalid_option` unless given) with `data.field` naming the option.
 */
export function checkNumberOption<Value extends number | undefined>(
  value: Value,
  field: string,
  rule: NumberOptionRule,
  where?: string,
  code = "invalid_option",
): Value {
  if (value === undefined || isAllowed(value, rule)) return value;
  throw new ConfigurationError(
    code,
    `${where === undefined ? "" : `${where}: `}${field} must be ${describe(rule)}; got ${String(value)}.`,
    { data: { field, value: typeof value === "number" ? String(value) : typeof value } },
  );
}

function isAllowed(value: unknown, rule: NumberOptionRule): boolean {
  if (typeof value !== "number" || Number.isNaN(value)) return false;
  if (value === Number.POSITIVE_INFINITY && rule.infinite === true) return true;
  if (!Number.isFinite(value)) return false;
  if (rule.integer === true && !Number.isSafeInteger(value)) return false;
  if (rule.min !== undefined && (rule.aboveMin === true ? value <= rule.min : value < rule.min)) return false;
  if (rule.max !== undefined && value > rule.max) return false;
  return true;
}
