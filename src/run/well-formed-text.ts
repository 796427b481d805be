// Providers parse request bodies strictly: a lone surrogate, raw or escaped as `\ud83d` by
// JSON.stringify, fails the whole request ("no low surrogate in string", HTTP 400), and the
// result stays in the conversation, so every later turn fails the same way. Text a run reports
// is therefore cut between code points and has no lone surrogate.

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

type MaybeWellFormed = string & { isWellFormed?: () => boolean; toWellFormed?: () => string };

/** `text` with every lone surrogate replaced by U+FFFD (as `String.prototype.toWellFormed`). */
export function wellFormed(text: string): string {
  const native = text as MaybeWellFormed;
  if (typeof native.isWellFormed === "function" && typeof native.toWellFormed === "function") {
    return native.isWellFormed() ? text : native.toWellFormed();
  }
  return text.replace(LONE_SURROGATE, "\uFFFD");
}

/** `text` with every lone surrogate written out as the six characters of its JSON escape (`\ud83d`). */
export function escapeLoneSurrogates(text: string): string {
  return text.replace(LONE_SURROGATE, (unit) => `\\u${unit.charCodeAt(0).toString(16)}`);
}

const isHigh = (code: number) => code >= 0xd800 && code <= 0xdbff;
const isLow = (code: number) => code >= 0xdc00 && code <= 0xdfff;

/** `end`, moved back by one when it would split a surrogate pair (for `text.slice(0, end)`). */
export function pairSafeEnd(text: string, end: number): number {
  return end > 0 && end < text.length && isHigh(text.charCodeAt(end - 1)) && isLow(text.charCodeAt(end)) ? end - 1 : end;
}

/** `start`, moved on by one when it would split a surrogate pair (for `text.slice(start)`). */
export function pairSafeStart(text: string, start: number): number {
  return start > 0 && start < text.length && isHigh(text.charCodeAt(start - 1)) && isLow(text.charCodeAt(start))
    ? start + 1
    : start;
}
