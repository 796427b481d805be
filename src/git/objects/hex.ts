/** Per character code: its value as a hex digit, or 255 (`Buffer.write(..., "hex")` costs a native call and its checks per id). */
const DIGITS = new Uint8Array(128).fill(255);
for (let digit = 0; digit < 16; digit++) {
  DIGITS["0123456789abcdef".charCodeAt(digit)] = digit;
  DIGITS["0123456789ABCDEF".charCodeAt(digit)] = digit;
}

/**
 * Writes the 40-digit hex object id `oid` into the first 20 bytes of `target`, in JavaScript: a
 * history walk looks ids up tens of thousands of times, and this is several times cheaper than
 * `target.write(oid, "hex")` for one short string. Returns false (target unspecified) when
 * `oid` is not 40 hex digits.
 */
export function writeObjectId(oid: string, target: Uint8Array): boolean {
  if (oid.length !== 40) return false;
  for (let index = 0; index < 20; index++) {
    const high = DIGITS[oid.charCodeAt(index * 2)] ?? 255;
    const low = DIGITS[oid.charCodeAt(index * 2 + 1)] ?? 255;
    if ((high | low) > 15) return false;
    target[index] = (high << 4) | low;
  }
  return true;
}
