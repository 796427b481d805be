import { ToolError } from "agent-tool-catalog";
import type { Cron } from "croner";
import { loadOnDemand } from "../../tool/load-on-demand.js";

// Loaded by the first call that needs it, not by the host entry's import (src/tool/load-on-demand.ts).
const croner = loadOnDemand<{ Cron: typeof Cron }>("croner");

/**
 * The five fields of a schedule, in order, as error messages name them.
 *
 * @public
 */
export const CRON_FIELD_NAMES = ["minute", "hour", "day-of-month", "month", "day-of-week"] as const;

/**
 * A checked 5-field UTC schedule.
 *
 * @public
 */
export interface CronSchedule {
  /** The expression, whitespace normalised. */
  readonly expression: string;
  /** The first time strictly after `afterMs` that the schedule matches, or `undefined` if none. */
  nextAfter(afterMs: number): number | undefined;
}

function invalid(schedule: string, message: string, field?: string): ToolError {
  return new ToolError("invalid_schedule", `Invalid schedule ${JSON.stringify(schedule)}: ${message}`, {
    hint: 'Use 5 fields in UTC: minute hour day-of-month month day-of-week, e.g. "*/15 * * * *" or "0 9 * * MON-FRI".',
    data: field === undefined ? { schedule } : { schedule, field },
  });
}

function compile(expression: string): Cron {
  return new (croner().Cron)(expression, { timezone: "UTC", paused: true });
}

/**
 * The day-of-week field as croner should read it. In cron (Quartz, cron-parser and so BullMQ)
 * `5L` is the last Friday of the month; croner takes `5L` silently as every Friday and spells the
 * last one `5#L`. Without this, "0 0 * * 5L" fired every Friday in process and on the last
 * Friday on BullMQ.
 */
function croneDayOfWeek(field: string): string {
  return field
    .split(",")
    .map((item) => item.replace(/^([0-7]|SUN|MON|TUE|WED|THU|FRI|SAT)L$/i, "$1#L"))
    .join(",");
}

/** The values each field takes, in the order of {@link CRON_FIELD_NAMES}. */
const FIELD_VALUES = ["0-59", "0-23", "1-31 or L", "1-12 or JAN-DEC", "0-7 (0 and 7 are Sunday) or SUN-SAT"] as const;

/** Finds the field croner refuses by trying each one alone, the others `*`. */
function checkFields(schedule: string, fields: readonly string[]): void {
  fields.forEach((field, index) => {
    const probe = fields.map((other, position) => (position === index ? other : "*")).join(" ");
    try {
      compile(probe);
    } catch (error) {
      const name = CRON_FIELD_NAMES[index] ?? `field ${index + 1}`;
      const reason = error instanceof Error ? error.message.replace(/^CronPattern:\s*/, "") : String(error);
      // croner's "Invalid value for day: -1" / "for month: 12" name its own zero-based numbers
      // ("0" and "13" given): the allowed values say what to write instead.
      const detail = /^Invalid value for /.test(reason) ? "" : ` (${reason})`;
      throw invalid(
        schedule,
        `the ${name} field ${JSON.stringify(field)} is not valid${detail}; it takes ${FIELD_VALUES[index] ?? "other values"}.`,
        name,
      );
    }
  });
}

/**
 * A field that names a time zone: an assignment (`CRON_TZ=Europe/Paris`, `TZ=UTC`), `UTC` or
 * `GMT` with or without an offset (`UTC+2`), an IANA name with digits and signs
 * (`Europe/Paris`, `Etc/GMT-14`, `America/Argentina/Buenos_Aires`), or an all-caps abbreviation
 * (`EST`, `CEST`) as the first or sixth of six fields. An abbreviation elsewhere, or one that starts
 * with a month or day name (`JAN`, `MON`, `FRIL` for the last Friday), is a cron value.
 */
const TIME_ZONE_FIELD = /=|^(?:UTC|GMT)(?:[+-]\d{1,2}(?::?\d{2})?)?$|^[A-Za-z_]+(?:\/[\w+-]*[A-Za-z][\w+-]*)+$/i;
const ZONE_ABBREVIATION = /^[A-Z]{3,5}$/;
const CRON_NAME = /^(?:JAN|FEB|MAR|APR|MAY|JUN|JUL|AUG|SEP|OCT|NOV|DEC|SUN|MON|TUE|WED|THU|FRI|SAT)/;

function namesTimeZone(fields: readonly string[]): boolean {
  if (fields.some((field) => TIME_ZONE_FIELD.test(field))) return true;
  if (fields.length !== 6) return false;
  return [fields[0], fields[5]].some((field) => field !== undefined && ZONE_ABBREVIATION.test(field) && !CRON_NAME.test(field));
}

/**
 * Checks a 5-field cron expression, read in UTC. Seconds (6 fields), a time zone
 * (`CRON_TZ=...`, `UTC`, `Europe/Paris`), nicknames (`@daily`), `?` and schedules that never match
 * (`0 0 30 2 *`) are refused; a field out of range is named with the values it takes.
 * @throws ToolError `invalid_schedule` naming the field at fault.
 * @public
 */
export function parseCronSchedule(schedule: string): CronSchedule {
  const fields = schedule
    .trim()
    .split(/\s+/)
    .filter((field) => field !== "");
  if (namesTimeZone(fields))
    throw invalid(schedule, "time zones are not supported: every schedule is read in UTC; give the 5 fields only.");
  if (fields.length === 6) throw invalid(schedule, "6 fields given; seconds are not supported, use 5 fields (minute first).");
  if (fields.length !== 5)
    throw invalid(schedule, `expected 5 fields (minute hour day-of-month month day-of-week), got ${fields.length}.`);
  const questionMark = fields.findIndex((field) => field.includes("?"));
  if (questionMark !== -1) {
    const name = CRON_FIELD_NAMES[questionMark] ?? "field";
    throw invalid(schedule, `the ${name} field uses "?", which is not supported; use "*".`, name);
  }
  const read = [...fields.slice(0, 4), croneDayOfWeek(fields[4] ?? "")];
  checkFields(schedule, read);
  const expression = fields.join(" ");
  let cron: Cron;
  try {
    cron = compile(read.join(" "));
  } catch (error) {
    throw invalid(schedule, error instanceof Error ? error.message : String(error));
  }
  const nextAfter = (afterMs: number) => {
    try {
      return cron.nextRun(new Date(afterMs))?.getTime();
    } catch (error) {
      // croner searches by recursion, one frame per month it skips, until the year 3000: for some
      // schedules that never match ("0-59 0-23 31 2,4,6,9,11 *") the stack overflows first. No
      // match in the search is what it means; thrown, it reached the model as tool_failed, and
      // thrown from a scheduler's timer it would end the process.
      if (error instanceof RangeError) return undefined;
      throw error;
    }
  };
  if (nextAfter(Date.UTC(2000, 0, 1)) === undefined)
    throw invalid(schedule, "it never matches a date (check day-of-month and month).");
  return { expression, nextAfter };
}
