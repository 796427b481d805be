/**
 * What a parsed JSON value costs to keep, roughly: the length of every string in it (keys too)
 * plus 8 for every other value. Walked with a stack of its own, so a value nested deeper than the
 * call stack is measured like any other (a hostile server's JSON need not be shallow), and the walk
 * stops as soon as the size is past `limit` (the rest would not change the answer).
 */
export function jsonValueSize(value: unknown, limit: number): number {
  let size = 0;
  const pending: unknown[] = [value];
  while (pending.length > 0 && size <= limit) {
    const next = pending.pop();
    if (typeof next === "string") size += next.length;
    else if (Array.isArray(next)) {
      size += 8;
      for (const item of next) pending.push(item);
    } else if (typeof next === "object" && next !== null) {
      size += 8;
      for (const [key, item] of Object.entries(next)) {
        size += key.length;
        pending.push(item);
      }
    } else size += 8;
  }
  return size;
}
