/**
 * A deep copy of a JSON value, frozen at every level. Schemas given to `defineTool` and the
 * descriptors runs hand out are such copies, so that mutating either later changes neither what
 * runs send nor what validation enforces.
 * @throws TypeError for a value that is not plain JSON data (a function, a cycle).
 */
export function frozenJsonCopy<T>(value: T): T {
  return deepFreeze(copyJson(value, new Set())) as T;
}

function copyJson(value: unknown, onPath: Set<object>): unknown {
  if (typeof value !== "object" || value === null) {
    if (typeof value === "function" || typeof value === "symbol" || typeof value === "bigint") {
      throw new TypeError(`a ${typeof value} is not JSON`);
    }
    return value;
  }
  if (onPath.has(value)) throw new TypeError("the schema contains a cycle");
  onPath.add(value);
  let out: unknown;
  if (Array.isArray(value)) {
    out = value.map((item) => copyJson(item, onPath));
  } else {
    const copy: Record<string, unknown> = {};
    for (const key of Object.keys(value)) {
      // defineProperty, not assignment: a key named "__proto__" stays data, never a prototype.
      Object.defineProperty(copy, key, {
        value: copyJson((value as Record<string, unknown>)[key], onPath),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    out = copy;
  }
  onPath.delete(value);
  return out;
}

/** Freezes `value` and everything it holds. */
export function deepFreeze<T>(value: T): T {
  if (typeof value !== "object" || value === null || Object.isFrozen(value)) return value;
  Object.freeze(value);
  for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
  return value;
}
