import { countOf } from "../../errors/count-of.js";

/**
 * How many characters of `[not searched: ...]` lines name files one by one; the files past it are
 * counted by reason. The same size as the ripgrep error output kept (a stop-36 review asked that
 * 150 unreadable directories all be named, so the bound is in bytes, not a few names).
 */
export const MAX_NAMED_UNSEARCHED_CHARS = 64 * 1024;

/** The reason of the entry saying a list of what was not searched is cut (ripgrep's error output was). */
export const UNSEARCHED_LIST_CUT_REASON = "and more files or directories under it that could not be read";

/**
 * The footer lines naming what a search left out, so that "No matches" is never read as "not in
 * that file": files by name up to {@link MAX_NAMED_UNSEARCHED_CHARS}, then one line counting the
 * rest by reason; an entry saying the list was cut comes last, always. Without the bound, a
 * directory of 100,000 hard links (the JavaScript engine refuses each under sandbox `workspace`)
 * answered 6.8 MB of `[not searched: ...]` lines (red team round 34).
 */
export function unsearchedFooter(
  unsearched: readonly { readonly absolute: string; readonly reason: string }[],
  display: (absolute: string) => string,
): string {
  let text = "";
  let cutLines = "";
  const byReason = new Map<string, number>();
  let rest = 0;
  for (const file of unsearched) {
    const line = `[not searched: ${display(file.absolute)} (${file.reason})]\n`;
    if (file.reason === UNSEARCHED_LIST_CUT_REASON) cutLines += line;
    else if (rest === 0 && text.length + line.length <= MAX_NAMED_UNSEARCHED_CHARS) text += line;
    else {
      rest++;
      const reason = file.reason.slice(0, 80);
      byReason.set(reason, (byReason.get(reason) ?? 0) + 1);
    }
  }
  if (rest === 0) return text + cutLines;
  const reasons = [...byReason]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 5)
    .map(([reason, count]) => `${count} ${reason}`)
    .join(", ");
  const more = byReason.size > 5 ? ", ..." : "";
  return `${text}[not searched: ${countOf(rest, "more file")} not named (${reasons}${more}); narrow the path to see them]\n${cutLines}`;
}
