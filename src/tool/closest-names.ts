/**
 * The candidates closest to `target` by edit distance (case-insensitive), for "did you mean"
 * hints; names that contain the target, or that it contains, count as close too.
 */
export function closestNames(target: string, candidates: Iterable<string>, limit = 3): string[] {
  const wanted = target.toLowerCase();
  const budget = Math.max(2, Math.floor(wanted.length / 3));
  const scored: { name: string; distance: number }[] = [];
  for (const name of candidates) {
    const lower = name.toLowerCase();
    let distance = editDistance(wanted, lower, budget + 1);
    if (distance > budget && wanted.length >= 3 && (lower.includes(wanted) || wanted.includes(lower))) {
      distance = budget;
    }
    if (distance <= budget) scored.push({ name, distance });
  }
  scored.sort((a, b) => a.distance - b.distance || a.name.localeCompare(b.name));
  return scored.slice(0, limit).map((entry) => entry.name);
}

/** Levenshtein distance, giving up (returning `cap`) once every path costs `cap` or more. */
function editDistance(a: string, b: string, cap: number): number {
  if (Math.abs(a.length - b.length) >= cap) return cap;
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let rowMinimum = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const value = Math.min((previous[j] as number) + 1, (current[j - 1] as number) + 1, (previous[j - 1] as number) + cost);
      current.push(value);
      if (value < rowMinimum) rowMinimum = value;
    }
    if (rowMinimum >= cap) return cap;
    previous = current;
  }
  return Math.min(previous[b.length] as number, cap);
}
