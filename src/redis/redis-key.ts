/**
 * A Redis key under `prefix`. Parts are joined with `:`; an id containing `:` stays unambiguous
 * because ids are the last part and each kind has its own fixed middle part.
 */
export function redisKey(prefix: string, ...parts: readonly string[]): string {
  return [prefix, ...parts].join(":");
}
