import { handlerInputCopy } from "./handler-input-copy.js";

/** Freezes the arrays and plain objects of a copy made by `handlerInputCopy` (what it took apart). */
function freezeCopied(value: unknown, seen: Set<object>): void {
  if (typeof value !== "object" || value === null || seen.has(value) || Object.isFrozen(value)) return;
  const prototype = Object.getPrototypeOf(value);
  // Only containers: a typed array with elements cannot be frozen, and a shared class instance is not ours to freeze.
  if (!Array.isArray(value) && prototype !== Object.prototype && prototype !== null) return;
  seen.add(value);
  Object.freeze(value);
  for (const key of Object.keys(value)) freezeCopied((value as Record<string, unknown>)[key], seen);
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
  freezeCopied(copy, new Set());
  return copy;
}
