import { nodeBuiltin } from "../tool/node-builtin.js";

/**
 * `util.types.isProxy` (a brand check: no trap runs), reached as `run/node-util-types.ts` reaches
 * it; without it no object is taken for plain (all are shared as they are).
 */
const isProxy = nodeBuiltin<{ types?: { isProxy?: (value: unknown) => boolean } }>("node:util")?.types?.isProxy;

/**
 * Whether `value` is a container this copy takes apart: an array, or an object of
 * `Object.prototype` or no prototype without symbol keys (what schema validation builds).
 * Anything else (a Date, a Map, a class instance a zod transform made, a proxy) is handed over as
 * it is: copying it would change what the handler gets, or run its code.
 */
function takenApart(value: object): boolean {
  if (isProxy === undefined || isProxy(value)) return false;
  const prototype = Object.getPrototypeOf(value);
  if (Array.isArray(value)) return prototype === Array.prototype;
  if (prototype !== Object.prototype && prototype !== null) return false;
  return Object.getOwnPropertySymbols(value).length === 0;
}

/** Depth below which the copy recurses (fast); deeper parts are copied with an explicit stack. */
const RECURSION_DEPTH = 256;

/** An empty container of `source`'s kind. */
function emptyLike(source: object): Record<string, unknown> | unknown[] {
  if (Array.isArray(source)) return new Array<unknown>(source.length);
  return Object.getPrototypeOf(source) === null ? (Object.create(null) as Record<string, unknown>) : {};
}

/** Fills `copy` from `source`, each member through `copyOf`. */
function fill(source: object, copy: Record<string, unknown> | unknown[], copyOf: (value: unknown) => unknown): void {
  if (Array.isArray(source)) {
    for (let index = 0; index < source.length; index++) (copy as unknown[])[index] = copyOf(source[index]);
    return;
  }
  const target = copy as Record<string, unknown>;
  for (const key of Object.keys(source)) {
    const value = copyOf((source as Record<string, unknown>)[key]);
    // Assigned, as JSON.parse builds objects; a key named `__proto__` is defined, so it stays an
    // own data property instead of setting the copy's prototype.
    if (key === "__proto__") Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
    else target[key] = value;
  }
}

/** The copy of a part nested {@link RECURSION_DEPTH} levels deep: an explicit stack, a cycle kept as one. */
function copyDeepPart(part: object): unknown {
  const copies = new Map<object, object>();
  const pending: [source: object, copy: Record<string, unknown> | unknown[]][] = [];
  const copyOf = (value: unknown): unknown => {
    if (typeof value !== "object" || value === null) return value;
    const known = copies.get(value);
    if (known !== undefined) return known;
    if (!takenApart(value)) return value;
    const copy = emptyLike(value);
    copies.set(value, copy);
    pending.push([value, copy]);
    return copy;
  };
  const root = copyOf(part);
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) fill(next[0], next[1], copyOf);
  return root;
}

/**
 * The handler's own copy of a validated input, made before the input is handed to anyone else
 * (an approval request, the `tool.called` event): a listener or approver that rewrites what it
 * was handed in place (a log masking a field, a page editing what it shows) must not change what
 * runs after a person approved it. Arrays and plain objects are copied at every depth (inputs
 * nest thousands of levels deep: past {@link RECURSION_DEPTH}, without recursion); a cycle stays
 * a cycle, and every other value is shared. Costs less than half a `JSON.parse(JSON.stringify())`
 * round trip: 5.8 against 13.5 ms of CPU for 0.77 MB of JSON, 0.36 against 1.07 us for a small
 * object (median of 3, load 23).
 */
export function handlerInputCopy(input: unknown): unknown {
  const ancestors: object[] = [];
  const copyOf = (value: unknown): unknown => {
    if (typeof value !== "object" || value === null || !takenApart(value)) return value;
    const at = ancestors.indexOf(value);
    if (at !== -1) return copies[at];
    if (ancestors.length >= RECURSION_DEPTH) return copyDeepPart(value);
    const copy = emptyLike(value);
    ancestors.push(value);
    copies.push(copy);
    fill(value, copy, copyOf);
    ancestors.pop();
    copies.pop();
    return copy;
  };
  const copies: object[] = [];
  return copyOf(input);
}
