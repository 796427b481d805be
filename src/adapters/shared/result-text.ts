import { formatToolResult, type ToolCallResult } from "agent-tool-catalog";

/**
 * The text of a result for the model, like `formatToolResult`, but never throwing: an output that
 * JSON cannot hold (a BigInt, a circular object, a getter or `toJSON` that throws) is written as
 * far as it can be, so one hostile output never loses the other results of a batch.
 */
export function resultText(result: ToolCallResult): string {
  try {
    return formatToolResult(result);
  } catch {
    return result.ok ? safeJson(result.output) : safeJson({ error: result.error });
  }
}

/**
 * JSON of any value, never throwing: BigInts become decimal strings, repeated references on the
 * current path become `"[Circular]"`, and a property whose read or `toJSON` throws becomes
 * `"[Unserializable]"`.
 */
export function safeJson(value: unknown): string {
  const path: object[] = [];
  const walk = (input: unknown): unknown => {
    if (input === UNREADABLE) return "[Unserializable]";
    let current = input;
    try {
      if (typeof current === "object" && current !== null && typeof (current as { toJSON?: unknown }).toJSON === "function") {
        current = (current as { toJSON(): unknown }).toJSON();
      }
    } catch {
      return "[Unserializable]";
    }
    if (typeof current === "bigint") return current.toString();
    if (typeof current === "function" || typeof current === "symbol" || current === undefined) return undefined;
    if (typeof current === "number") return Number.isFinite(current) ? current : null;
    if (typeof current !== "object" || current === null) return current;
    if (path.includes(current)) return "[Circular]";
    path.push(current);
    try {
      if (Array.isArray(current)) {
        const items: unknown[] = [];
        for (let index = 0; index < current.length; index++) items.push(walk(readField(current, index)) ?? null);
        return items;
      }
      const out: Record<string, unknown> = {};
      for (const key of Object.keys(current)) {
        const item = walk(readField(current, key));
        if (item !== undefined) out[key] = item;
      }
      return out;
    } catch {
      return "[Unserializable]";
    } finally {
      path.pop();
    }
  };
  const text = JSON.stringify(walk(value));
  return text ?? "";
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
