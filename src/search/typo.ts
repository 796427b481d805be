/**
 * True when `a` and `b` differ by exactly one edit: one letter changed, added or dropped, or two
 * neighbouring letters swapped (`reflgo` / `reflog`). Linear in the words' length, no allocation:
 * the index runs it over its whole vocabulary for a query word it does not know.
 * @internal
 */
export function oneEditApart(a: string, b: string): boolean {
  if (a === b) return false;
  if (a.length === b.length) {
    let first = -1;
    for (let i = 0; i < a.length; i++) {
      if (a.charCodeAt(i) === b.charCodeAt(i)) continue;
      if (first >= 0) {
        // A second difference: only a swap of the two neighbours is still one edit.
        return (
          i === first + 1 &&
          a.charCodeAt(first) === b.charCodeAt(i) &&
          a.charCodeAt(i) === b.charCodeAt(first) &&
          a.slice(i + 1) === b.slice(i + 1)
        );
      }
      first = i;
    }
    return true;
  }
  const [short, long] = a.length < b.length ? [a, b] : [b, a];
  if (long.length - short.length !== 1) return false;
  let i = 0;
  while (i < short.length && short.charCodeAt(i) === long.charCodeAt(i)) i++;
  // Drop the long word's letter at the first difference; the rest must match.
  for (let j = i; j < short.length; j++) if (short.charCodeAt(j) !== long.charCodeAt(j + 1)) return false;
  return true;
}

const LETTERS = "abcdefghijklmnopqrstuvwxyz";

/**
 * Calls `visit` with every lower-case ASCII word one edit away from `word` (a letter dropped,
 * changed or added, two neighbours swapped), some more than once: about 54 per letter. Looking
 * each up costs the same whatever the vocabulary's size, where comparing with every indexed word
 * grows with it (20,000 tools: 6x the time of a whole search).
 * @internal
 */
export function forEachOneEdit(word: string, visit: (candidate: string) => void): void {
  const n = word.length;
  for (let i = 0; i < n; i++) {
    const head = word.slice(0, i);
    const tail = word.slice(i + 1);
    visit(head + tail);
    if (i + 1 < n) visit(head + word[i + 1] + word[i] + word.slice(i + 2));
    for (const letter of LETTERS) if (letter !== word[i]) visit(head + letter + tail);
  }
  for (let i = 0; i <= n; i++) {
    const head = word.slice(0, i);
    const tail = word.slice(i);
    for (const letter of LETTERS) visit(head + letter + tail);
  }
}
