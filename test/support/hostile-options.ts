/**
 * Table-driven checks of a factory's options against hostile values: every value a host could
 * pass by mistake (NaN, ±Infinity, negative, fractions, numbers past a timer's range, strings,
 * null, objects, arrays, unknown choices) is either accepted by the option's documented rule or
 * refused where the option is given, with a `ConfigurationError` `invalid_option` naming it.
 */
import { ConfigurationError } from "agent-tool-catalog";
import { expect } from "vitest";

/** What the docs say a numeric option accepts (as `checkNumberOption`'s rule). */
export interface DocumentedRule {
  readonly min: number;
  readonly max?: number;
  readonly aboveMin?: boolean;
  readonly integer?: boolean;
  readonly infinite?: boolean;
}

/** Whole milliseconds a timer honours (Node fires a longer one after 1 ms). */
export const TIMER: DocumentedRule = { min: 1, max: 2 ** 31 - 1, integer: true };

/** Values of the wrong type and numbers of every awkward kind. */
export const HOSTILE_VALUES: readonly unknown[] = [
  Number.NaN,
  Number.POSITIVE_INFINITY,
  Number.NEGATIVE_INFINITY,
  -1,
  -0.5,
  0,
  0.5,
  1,
  1.5,
  2,
  10,
  1000,
  2 ** 31 - 1,
  2 ** 31,
  2 ** 32,
  2 ** 53,
  1e308,
  "10",
  "",
  null,
  {},
  [],
  [10],
  true,
];

/** True when the documented rule accepts `value`. */
export function allowedBy(value: unknown, rule: DocumentedRule): boolean {
  if (typeof value !== "number" || Number.isNaN(value)) return false;
  if (value === Number.POSITIVE_INFINITY) return rule.infinite === true;
  if (!Number.isFinite(value)) return false;
  if (rule.integer === true && !Number.isSafeInteger(value)) return false;
  if (rule.aboveMin === true ? value <= rule.min : value < rule.min) return false;
  return rule.max === undefined || value <= rule.max;
}

/** The error `give(value)` throws, or undefined. */
export async function thrownBy(give: () => unknown): Promise<unknown> {
  try {
    await give();
    return undefined;
  } catch (error) {
    return error;
  }
}

/**
 * Feeds each hostile value to `give` and checks the outcome against `rule`; collects every
 * mismatch so one failure lists them all.
 */
export async function expectRuleHolds(
  field: string,
  give: (value: never) => unknown,
  rule: DocumentedRule,
  values: readonly unknown[] = HOSTILE_VALUES,
  code = "invalid_option",
): Promise<void> {
  const wrong: string[] = [];
  for (const value of values) {
    const error = await thrownBy(() => give(value as never));
    const shown = typeof value === "number" ? String(value) : JSON.stringify(value);
    if (allowedBy(value, rule)) {
      if (error !== undefined) wrong.push(`${shown}: refused (${String(error)})`);
    } else if (!(error instanceof ConfigurationError) || error.code !== code || error.data.field !== field) {
      wrong.push(`${shown}: ${error === undefined ? "accepted" : `wrong error ${String(error)}`}`);
    }
  }
  expect(wrong, `${field}`).toEqual([]);
}

/** Checks that each value outside `choices` is refused with `invalid_option`, and each choice is accepted. */
export async function expectChoicesHold(
  field: string,
  give: (value: never) => unknown,
  choices: readonly string[],
): Promise<void> {
  const wrong: string[] = [];
  for (const value of [...choices, "AUTO", "", "none", 1, null, {}, [], true]) {
    const error = await thrownBy(() => give(value as never));
    const shown = JSON.stringify(value);
    if (typeof value === "string" && choices.includes(value)) {
      if (error !== undefined) wrong.push(`${shown}: refused (${String(error)})`);
    } else if (!(error instanceof ConfigurationError) || error.code !== "invalid_option" || error.data.field !== field) {
      wrong.push(`${shown}: ${error === undefined ? "accepted" : `wrong error ${String(error)}`}`);
    }
  }
  expect(wrong, `${field}`).toEqual([]);
}
