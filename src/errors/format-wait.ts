/**
 * A wait for a message a person or a model reads: whole milliseconds under a second, tenths of a
 * second above. Rounding every wait to whole seconds said "within 0 s" for a 200 ms approval
 * timeout and "within 2 s" for 1.6 s.
 */
export function formatWait(ms: number): string {
  // Rounded first, so 999.6 ms is said "1 s", not "1000 ms".
  const whole = Math.round(ms);
  return whole < 1000 ? `${whole} ms` : `${Math.round(whole / 100) / 10} s`;
}
