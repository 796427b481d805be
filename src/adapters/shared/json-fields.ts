/** True for any non-null object: the first check when reading provider JSON of unknown shape. */
export function isObject(value: unknown): value is object {
  return typeof value === "object" && value !== null;
}

/** An own property of provider JSON (never one inherited from `Object.prototype`). */
export function field(value: object, key: string): unknown {
  return Object.hasOwn(value, key) ? (value as Record<string, unknown>)[key] : undefined;
}
