const LEAVE = Symbol("leave");

/**
 * Adds an object's entries to the walk; returns the size of its own punctuation and keys, or
 * `Infinity` (pushing nothing more) once that alone passes `budget`. Checked before anything is
 * pushed: a sparse array's `length` can be 2^32 - 1 with one element, and pushing its holes
 * crashed V8 ("invalid size error"), not a catchable error.
 */
function pushChildren(current: object, stack: unknown[], budget: number): number {
  if (Array.isArray(current)) {
    const own = 2 + current.length;
    if (own > budget) return Number.POSITIVE_INFINITY;
    for (let index = current.length - 1; index >= 0; index--) stack.push(current[index]);
    return own;
  }
  let size = 2;
  for (const key of Object.keys(current)) {
    size += key.length + 4;
    if (size > budget) return Number.POSITIVE_INFINITY;
    stack.push((current as Record<string, unknown>)[key]);
  }
  return size;
}

/** The JSON size of a scalar, or `Infinity` for what JSON cannot hold (bigint, symbol, function). */
function scalarSize(value: unknown): number {
  switch (typeof value) {
    case "string":
      return value.length + 2;
    case "number":
    case "boolean":
      return 8;
    case "undefined":
      return 4;
    case "object":
      return 4; // null
    default:
      return Number.POSITIVE_INFINITY;
  }
}

/**
 * An estimate of the JSON size of `value`, in UTF-16 code units, that stops as soon as it passes
 * `limit` (so a 100 MB object costs about as much as a `limit`-sized one). Cycles and values JSON
 * cannot hold count as over the limit: such input cannot come from a model. Returns `Infinity`
 * when over. Objects are walked with an explicit stack, so deep nesting cannot overflow.
 */
export function estimateJsonSize(value: unknown, limit: number): number {
  const measured = measureJson(value, limit);
  return typeof measured === "number" ? measured : Number.POSITIVE_INFINITY;
}

/**
 * {@link estimateJsonSize} telling why a value is not JSON data when that is what stopped it:
 * `"cycle"` for an object that contains itself, `"not_json"` for a function, symbol or BigInt.
 * A caller answering the model names the cause: "larger than the limit" misled for a small cycle.
 */
export function measureJson(value: unknown, limit: number): number | "cycle" | "not_json" {
  let total = 0;
  const onPath = new Set<object>();
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const current = stack.pop();
    if (current === LEAVE) {
      onPath.delete(stack.pop() as object);
      continue;
    }
    if (typeof current === "object" && current !== null) {
      if (onPath.has(current)) return "cycle";
      onPath.add(current);
      stack.push(current, LEAVE);
      total += pushChildren(current, stack, limit - total);
    } else {
      const size = scalarSize(current);
      if (size === Number.POSITIVE_INFINITY) return "not_json";
      total += size;
    }
    if (total > limit) return Number.POSITIVE_INFINITY;
  }
  return total;
}
