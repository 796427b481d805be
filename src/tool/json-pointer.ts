/**
 * One segment of a JSON Pointer in a `$ref` fragment (`#/$defs/a~1b`), decoded as the validator
 * (Ajv) decodes it: percent-decoding first (the fragment is a URI), then `~1` to `/` and `~0` to
 * `~`, in that order (RFC 6901: `~01` is `~1`, not `/`). `undefined` for malformed
 * percent-encoding (`100%`, `%E0%A4%A`): Ajv refuses to compile such a `$ref`, so it names no node.
 */
export function decodePointerSegment(raw: string): string | undefined {
  let decoded: string;
  try {
    decoded = decodeURIComponent(raw);
  } catch {
    return undefined;
  }
  return decoded.replaceAll("~1", "/").replaceAll("~0", "~");
}

/**
 * `name` as one segment of a JSON Pointer (RFC 6901): `~` to `~0`, then `/` to `~1`, so that
 * {@link decodePointerSegment} gives `name` back. For the paths an error names (`schema/properties/a~1b`).
 */
export function encodePointerSegment(name: string): string {
  return name.replaceAll("~", "~0").replaceAll("/", "~1");
}
