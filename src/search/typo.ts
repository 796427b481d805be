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
