/**
 * A wait for a message a person or a model reads: whole milliseconds under a second, tenths of a
 * second above. Rounding every wait to whole seconds said "within 0 s" for a 200 ms approval
 * timeout and "within 2 s" for 1.6 s.
 */
export function formatWait(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${Math.round(ms / 100) / 10} s`;
}
