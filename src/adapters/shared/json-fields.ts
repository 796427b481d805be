/** True for any non-null object: the first check when reading provider JSON of unknown shape. */
export function isObject(value: unknown): value is object {
  return typeof value === "object" && value !== null;
}

/**
 * An own property of provider JSON (never one inherited from `Object.prototype`), or `undefined`
 * for anything that is not an object or whose read throws (a proxy, a getter): the batch runners
 * promise a result for every call, so one hostile item must not reject the whole batch.
 */
export function field(value: unknown, key: string): unknown {
  if (!isObject(value)) return undefined;
  try {
    return Object.hasOwn(value, key) ? (value as Record<string, unknown>)[key] : undefined;
  } catch {
    return undefined;
  }
}

/** The entries of a provider array (a copy), or none when it is not an array or cannot be read. */
export function entries(list: unknown): unknown[] {
  try {
    return Array.isArray(list) ? Array.from(list as readonly unknown[]) : [];
  } catch {
    return [];
  }
}

/** A provider value for a message the library writes: itself when a string, else a placeholder. */
export function label(value: unknown): string {
  return typeof value === "string" ? value : "(not a string)";
}
