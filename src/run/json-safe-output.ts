/** What a value whose getter or `toJSON` throws becomes. */
const UNSERIALIZABLE = "[Unserializable]";

/** Deepest nesting kept in an output; deeper values are replaced by a marker. */
export const MAX_OUTPUT_DEPTH = 100;

/** An output made JSON-safe, or why it cannot be. */
export type JsonSafeOutcome = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly reason: string };

/**
 * Makes a handler's output safe to serialise before the call is reported `ok: true`, so that
 * formatting results (`formatToolResult`, the adapters) never throws and loses a batch:
 * a BigInt becomes its decimal string, a repeated reference on the current path becomes
 * `"[Circular]"`, values JSON drops (functions, symbols, `undefined` in objects) are dropped,
 * `toJSON` is honoured, nesting deeper than {@link MAX_OUTPUT_DEPTH} becomes `"[Too deep]"`, and
 * a value whose getter or `toJSON` throws becomes `"[Unserializable]"` (the convention the
 * adapters use too). `undefined` stays where it was (JSON leaves it out). Only an output that
 * cannot even be inspected (a revoked proxy at the top) is unusable (`ok: false`).
 */
export function toJsonSafe(output: unknown): JsonSafeOutcome {
  // Nested ones are dropped as JSON.stringify drops them; a whole output that is one is no data.
  if (typeof output === "function" || typeof output === "symbol") return { ok: false, reason: `a ${typeof output} is not data` };
  try {
    return { ok: true, value: convert(output, new Set(), 0) };
  } catch (error) {
    let reason = "reading it threw";
    try {
      if (error instanceof Error && typeof error.message === "string")
        reason = `reading it threw: ${error.message.slice(0, 200)}`;
    } catch {
      // keep the generic reason
    }
    return { ok: false, reason };
  }
}

function convert(value: unknown, onPath: Set<object>, depth: number): unknown {
  switch (typeof value) {
    case "string":
    case "boolean":
      return value;
    case "number":
      return Number.isFinite(value) ? value : null;
    case "bigint":
      return value.toString();
    case "undefined":
    case "function":
    case "symbol":
      return undefined;
  }
  if (value === null) return null;
  const object = value as object;
  if (onPath.has(object)) return "[Circular]";
  if (depth >= MAX_OUTPUT_DEPTH) return "[Too deep]";
  const toJSON = (object as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === "function") {
    onPath.add(object);
    let converted: unknown;
    try {
      converted = convert(toJSON.call(object), onPath, depth + 1);
    } catch {
      converted = UNSERIALIZABLE;
    }
    onPath.delete(object);
    return converted;
  }
  onPath.add(object);
  let out: unknown;
  if (Array.isArray(object)) {
    out = object.map((item) => convert(item, onPath, depth + 1));
  } else {
    const copy: Record<string, unknown> = {};
    for (const key of Object.keys(object)) {
      let original: unknown;
      let converted: unknown;
      try {
        original = (object as Record<string, unknown>)[key];
        converted = convert(original, onPath, depth + 1);
      } catch {
        converted = UNSERIALIZABLE;
      }
      if (converted !== undefined || original === undefined) {
        Object.defineProperty(copy, key, { value: converted, enumerable: true, writable: true, configurable: true });
      }
    }
    out = copy;
  }
  onPath.delete(object);
  return out;
}

/** True when a value needs no conversion: JSON.stringify gives the same text. Cheap pre-check. */
export function isPlainJsonScalar(value: unknown): boolean {
  return (
    typeof value === "string" ||
    typeof value === "boolean" ||
    value === null ||
    (typeof value === "number" && Number.isFinite(value))
  );
}
