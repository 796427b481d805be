import { formatToolResult, type ToolCallResult } from "agent-tool-catalog";

/**
 * The text of a result for the model, like `formatToolResult`, but never throwing: an output that
 * JSON cannot hold (a BigInt, a circular object, a getter or `toJSON` that throws) is written as
 * far as it can be, so one hostile output never loses the other results of a batch.
 */
export function resultText(result: ToolCallResult): string {
  if (!result.ok) {
    try {
      return formatToolResult(result);
    } catch {
      return safeJson({ error: result.error });
    }
  }
  const { output } = result;
  if (typeof output === "string") return output;
  if (output === undefined) return "";
  try {
    return JSON.stringify(output) ?? String(output);
  } catch {
    return safeJson(output);
  }
}

/**
 * JSON of any value, never throwing: BigInts become decimal strings, repeated references on the
 * current path become `"[Circular]"`, and a property whose read or `toJSON` throws becomes
 * `"[Unserializable]"`.
 */
export function safeJson(value: unknown): string {
  return JSON.stringify(plain(value, [])) ?? "";
}

/** `value` as plain JSON data; `path` holds the objects being walked (a cycle points back into it). */
function plain(input: unknown, path: object[]): unknown {
  if (input === UNREADABLE) return "[Unserializable]";
  let current: unknown;
  try {
    current = withToJson(input);
  } catch {
    return "[Unserializable]";
  }
  if (typeof current === "bigint") return current.toString();
  if (typeof current === "number") return Number.isFinite(current) ? current : null;
  if (typeof current !== "object" || current === null)
    return typeof current === "string" || typeof current === "boolean" || current === null ? current : undefined;
  if (path.includes(current)) return "[Circular]";
  path.push(current);
  try {
    return Array.isArray(current) ? plainArray(current, path) : plainObject(current, path);
  } catch {
    return "[Unserializable]";
  } finally {
    path.pop();
  }
}

function withToJson(value: unknown): unknown {
  if (typeof value !== "object" || value === null) return value;
  const toJSON = (value as { toJSON?: unknown }).toJSON;
  return typeof toJSON === "function" ? (toJSON as () => unknown).call(value) : value;
}

function plainArray(items: readonly unknown[], path: object[]): unknown[] {
  const out: unknown[] = [];
  for (let index = 0; index < items.length; index++) out.push(plain(readField(items, index), path) ?? null);
  return out;
}

function plainObject(value: object, path: object[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const item = plain(readField(value, key), path);
    // Defined, not assigned: an output key "__proto__" would set the prototype and vanish.
    if (item !== undefined)
      Object.defineProperty(out, key, { value: item, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/** `value` as plain JSON data (what `safeJson` writes), `null` for what JSON cannot hold at all. */
export function jsonData(value: unknown): unknown {
  const text = safeJson(value);
  return text === "" ? null : JSON.parse(text);
}

const UNREADABLE = Symbol("unreadable");

function readField(value: object, key: string | number): unknown {
  try {
    return (value as Record<string | number, unknown>)[key];
  } catch {
    return UNREADABLE;
  }
}
