/**
 * The process's one `Map` under `key` (a `Symbol.for` key), made empty the first time. It lives on
 * `globalThis`, so the ESM and CommonJS copies of the package, which one host may load both of,
 * share one record (a workspace recorded by one copy's `createRun` is seen by the other copy's
 * tools). Not enumerable nor writable: it does not show in `globalThis` listings and is not replaced.
 */
export function processWideMap<K, V>(key: symbol): Map<K, V> {
  const holder = globalThis as { [key: symbol]: unknown };
  const existing = holder[key];
  if (existing instanceof Map) return existing as Map<K, V>;
  const created = new Map<K, V>();
  Object.defineProperty(holder, key, { value: created, enumerable: false, writable: false, configurable: false });
  return created;
}
