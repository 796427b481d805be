import { countOf } from "../errors/count-of.js";
import type { ValidationIssue } from "./validation-issue.js";

/** Most issues one `invalid_input` error lists; the rest are counted in one summary issue. */
export const MAX_VALIDATION_ISSUES = 20;
/** Longest issue path kept, in characters (a longer one keeps its head and tail). */
export const MAX_ISSUE_PATH_LENGTH = 120;
/** Longest issue message kept, in characters. */
export const MAX_ISSUE_MESSAGE_LENGTH = 200;

function cutMiddle(text: string, max: number): string {
  if (text.length <= max) return text;
  const half = Math.floor((max - 1) / 2);
  return `${text.slice(0, half)}…${text.slice(text.length - half)}`;
}

/**
 * Removes what validators quote from the input: zod 3's `received 'value'` in enum and literal
 * errors, its `Unrecognized key(s) in object: 'a', 'b'`, and any quoted text of a "received"
 * clause. The allowed values (from the schema) stay; the model's own values never come back.
 */
export function withoutEchoedValues(message: string): string {
  return message
    .replace(/^Unrecognized key(?:s|\(s\))?(?: in object)?:.*/s, "unknown property is not allowed")
    .replace(/,?\s*received\s+(['"`]).*$/s, "")
    .replace(/\s*\(received\s+(['"`]).*\)$/s, "");
}

/**
 * Caps validation issues in number and size and strips echoed values, so that a 2 MB argument
 * of bad array elements gives a short error, not a 100 MB one. At most
 * {@link MAX_VALIDATION_ISSUES} issues plus one summary, each path at most
 * {@link MAX_ISSUE_PATH_LENGTH} and each message at most {@link MAX_ISSUE_MESSAGE_LENGTH}
 * characters: about 7 KB in all, whatever the input.
 */
export function boundIssues(issues: Iterable<ValidationIssue>): ValidationIssue[] {
  const out: ValidationIssue[] = [];
  let total = 0;
  for (const issue of issues) {
    total++;
    if (out.length >= MAX_VALIDATION_ISSUES) continue;
    const path = cutMiddle(typeof issue.path === "string" ? issue.path : "", MAX_ISSUE_PATH_LENGTH);
    const message = cutMiddle(
      withoutEchoedValues(typeof issue.message === "string" ? issue.message : "is invalid"),
      MAX_ISSUE_MESSAGE_LENGTH,
    );
    out.push({ path, message });
  }
  if (total > out.length) {
    out.push({ path: "", message: `and ${countOf(total - out.length, "more issue")} of the same kinds; fix these first` });
  }
  return out;
}
