import { handlerInputCopy } from "./handler-input-copy.js";

/**
 * Freezes the arrays and plain objects of a copy made by `handlerInputCopy` (what it took apart),
 * with an explicit stack: the copy nests as deeply as the input, and a string of arguments parses
 * to any depth (round 46: 20,000 levels overflowed a recursive freeze, and a call with a
 * `tool.called` listener or an approval failed where the same call without one ran).
 */
function freezeCopied(root: unknown): void {
  const seen = new Set<object>();
  const pending: unknown[] = [root];
  while (pending.length > 0) {
    const value = pending.pop();
    if (typeof value !== "object" || value === null || seen.has(value) || Object.isFrozen(value)) continue;
    const prototype = Object.getPrototypeOf(value);
    // Only containers: a typed array with elements cannot be frozen, and a shared class instance is not ours to freeze.
    if (!Array.isArray(value) && prototype !== Object.prototype && prototype !== null) continue;
    seen.add(value);
    Object.freeze(value);
    for (const key of Object.keys(value)) pending.push((value as Record<string, unknown>)[key]);
  }
}

/**
 * The copy of a live value (a call's input, its result) that the library hands to listeners and
 * approvers, frozen at every level: arrays and plain objects are copied (as `handlerInputCopy`
 * copies a handler's input: any depth, a cycle kept, a `__proto__` key kept as data) and frozen;
 * every other value (a Date, a class instance a zod transform made, a proxy) is shared as it is,
 * neither copied nor frozen, since copying it would run its code. One copy serves every listener
 * and approver of one event: what one of them does to it reaches neither the others nor the code
 * that made the value (round 44; results since round 42).
 */
export function frozenEventCopy<Value>(value: Value): Value {
  const copy = handlerInputCopy(value) as Value;
  freezeCopied(copy);
  return copy;
}
