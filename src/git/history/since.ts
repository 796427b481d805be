import { gitError } from "../git-errors.js";

const UNITS: Readonly<Record<string, number>> = {
  second: 1,
  minute: 60,
  hour: 3600,
  day: 86_400,
  week: 7 * 86_400,
};

const RELATIVE = /^(\d+)[\s.]*(second|minute|hour|day|week|month|year)s?(?:[\s.]+ago)?$/;
const ISO = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;

function invalid(value: string): Error {
  return gitError(
    "invalid_since",
    `since ${JSON.stringify(value)} is not a date this tool understands.`,
    'Use an ISO date ("2024-05-01", "2024-05-01T12:00:00Z") or a relative one ("3 days ago", "2 weeks ago", "6 months ago", "1 year ago", "yesterday").',
  );
}

function monthsBack(now: Date, months: number): number {
  const date = new Date(now.getTime());
  date.setUTCMonth(date.getUTCMonth() - months);
  return Math.floor(date.getTime() / 1000);
}

/**
 * The `since` bound in seconds. Accepted: ISO 8601 dates and date-times (a date alone means
 * midnight UTC; a date-time without zone means UTC), `N <unit>[s] [ago]` with units second,
 * minute, hour, day, week, month (calendar months) and year, and `yesterday`/`today`. git's
 * approxidate accepts far more ("last friday"); guessing would hide mistakes, so these fail.
 */
export function parseSince(value: string, now: Date): number {
  const text = value.trim().toLowerCase();
  const nowSeconds = Math.floor(now.getTime() / 1000);
  if (text === "today") return Math.floor(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()) / 1000);
  if (text === "yesterday") return nowSeconds - 86_400;
  const relative = RELATIVE.exec(text);
  if (relative !== null) {
    const amount = Number.parseInt(relative[1] ?? "0", 10);
    const unit = relative[2] ?? "day";
    if (unit === "month") return monthsBack(now, amount);
    if (unit === "year") return monthsBack(now, amount * 12);
    return nowSeconds - amount * (UNITS[unit] ?? 86_400);
  }
  if (ISO.test(value.trim())) {
    const normalized = value
      .trim()
      .replace(" ", "T")
      .replace(/([+-]\d{2})(\d{2})$/, "$1:$2");
    const withZone = /T.*(Z|[+-]\d{2}:?\d{2})$/.test(normalized) || !normalized.includes("T") ? normalized : `${normalized}Z`;
    const time = Date.parse(normalized.includes("T") ? withZone : `${normalized}T00:00:00Z`);
    if (Number.isFinite(time)) return Math.floor(time / 1000);
  }
  throw invalid(value);
}
