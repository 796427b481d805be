/**
 * The most characters of one line grep prints. A longer line (a minified bundle, a one-line JSON
 * dump) is cut here and says so, by either engine, so that one match never floods the answer and
 * ripgrep's output is never held whole.
 */
export const GREP_MAX_LINE_CHARS = 4000;

/**
 * `text` cut to {@link GREP_MAX_LINE_CHARS} characters (never inside a surrogate pair), ended by a
 * note of how many were left out; `alreadyDropped` counts characters left out before `text` reached here.
 */
export function clipLineText(text: string, alreadyDropped = 0): string {
  if (text.length <= GREP_MAX_LINE_CHARS && alreadyDropped === 0) return text;
  let end = Math.min(text.length, GREP_MAX_LINE_CHARS);
  const last = text.charCodeAt(end - 1);
  if (end < text.length && last >= 0xd800 && last <= 0xdbff) end--;
  return `${text.slice(0, end)} [... line cut: ${text.length - end + alreadyDropped} more characters]`;
}
