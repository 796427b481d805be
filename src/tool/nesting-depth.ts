/**
 * How deeply objects and arrays nest in `value`: an object or array is one level, an object or
 * array among its members the next, a primitive none. Walked with an explicit stack, since a value
 * from `JSON.parse` may nest deeper than any recursion goes; stops at the first level past `limit`
 * and returns `limit + 1` then, so a bound costs no more than the levels it allows.
 */
export function nestingDepth(value: unknown, limit = Number.POSITIVE_INFINITY): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 1]];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const [node, depth] = item;
    if (typeof node !== "object" || node === null) continue;
    if (depth > limit) return limit + 1;
    if (depth > deepest) deepest = depth;
    for (const child of Array.isArray(node) ? node : Object.values(node)) {
      if (typeof child === "object" && child !== null) stack.push([child, depth + 1]);
    }
  }
  return deepest;
}
