import { countOf } from "../../errors/count-of.js";

/** How many files left out of a search are named one by one; the rest are counted by reason. */
export const MAX_NAMED_UNSEARCHED = 50;

/**
 * The footer lines naming what a search left out: the first {@link MAX_NAMED_UNSEARCHED} files by
 * name (so that "No matches" is never read as "not in that file"), then one line counting the rest
 * by reason. Without the bound, a directory of 100,000 hard links (the JavaScript engine refuses
 * each) answered 6.8 MB of `[not searched: ...]` lines (red team round 34); the answer must stay
 * within what a model can read whatever the tree holds.
 */
export function unsearchedFooter(
  unsearched: readonly { readonly absolute: string; readonly reason: string }[],
  display: (absolute: string) => string,
): string {
  let text = "";
  for (const file of unsearched.slice(0, MAX_NAMED_UNSEARCHED))
    text += `[not searched: ${display(file.absolute)} (${file.reason})]\n`;
  const rest = unsearched.length - MAX_NAMED_UNSEARCHED;
  if (rest <= 0) return text;
  const byReason = new Map<string, number>();
  for (const file of unsearched.slice(MAX_NAMED_UNSEARCHED)) {
    const reason = file.reason.slice(0, 80);
    byReason.set(reason, (byReason.get(reason) ?? 0) + 1);
  }
  const reasons = [...byReason]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 5)
    .map(([reason, count]) => `${count} ${reason}`)
    .join(", ");
  return `${text}[not searched: ${countOf(rest, "more file")} not named (${reasons}${byReason.size > 5 ? ", ..." : ""}); narrow the path to see them]\n`;
}
