/** A millisecond timestamp as the ISO string the model reads; `undefined` stays `undefined`. */
export function isoTime(milliseconds: number | undefined): string | undefined {
  return milliseconds === undefined ? undefined : new Date(milliseconds).toISOString();
}
