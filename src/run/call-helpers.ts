import { CatalogError } from "../errors/catalog-error.js";
import { ConfigurationError } from "../errors/configuration-error.js";
import type { ToolCallErrorInfo } from "../tool/tool-call-result.js";

/** Longest message or hint taken from a handler's error (its text reaches the model). */
export const MAX_ERROR_TEXT_LENGTH = 2000;

/** Checks `allowedTools`; an empty list means every tool (`undefined`). */
export function resolveAllowedTools(allowedTools: readonly string[] | undefined): ReadonlySet<string> | undefined {
  if (allowedTools === undefined) return undefined;
  if (!Array.isArray(allowedTools) || !allowedTools.every((name) => typeof name === "string")) {
    throw new ConfigurationError("invalid_allowed_tools", "allowedTools must be an array of tool names (strings).", {
      data: { field: "allowedTools" },
    });
  }
  return allowedTools.length === 0 ? undefined : new Set(allowedTools);
}

/** The `then` of a thenable, or `undefined`; a throwing `then` getter counts as a rejection. */
function thenOf(value: unknown): ((onFulfilled: (v: unknown) => void, onRejected: (e: unknown) => void) => unknown) | undefined {
  if ((typeof value !== "object" && typeof value !== "function") || value === null) return undefined;
  const then = (value as { then?: unknown }).then;
  return typeof then === "function" ? (then as never) : undefined;
}

/**
 * Runs `task`, settling early with the abort reason when `signal` fires (a handler may ignore it,
 * or return a thenable that never settles). Any thenable is followed, not only native promises.
 */
export async function runUntilAborted<T>(task: () => T | PromiseLike<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) throw signal.reason;
  const pending = task();
  const then = thenOf(pending);
  if (then === undefined) return pending as T;
  let onAbort: (() => void) | undefined;
  try {
    return await new Promise<T>((resolve, reject) => {
      onAbort = () => reject(signal.reason);
      signal.addEventListener("abort", onAbort, { once: true });
      try {
        then.call(pending, resolve as (v: unknown) => void, reject);
      } catch (error) {
        reject(error);
      }
    });
  } finally {
    signal.removeEventListener("abort", onAbort as () => void);
  }
}

/** Reads a property without letting a throwing getter or a proxy trap escape. */
function safeGet(value: unknown, key: string): unknown {
  try {
    return (value as Record<string, unknown>)[key];
  } catch {
    return undefined;
  }
}

/** A string for the model from something a handler threw: capped, never throwing. */
function safeText(value: unknown): string | undefined {
  if (typeof value !== "string") return undefined;
  return value.length > MAX_ERROR_TEXT_LENGTH ? `${value.slice(0, MAX_ERROR_TEXT_LENGTH)}… (cut)` : value;
}

/** Describes any thrown value in a few words without calling its methods. */
function describeThrown(error: unknown): string {
  if (error === null) return "null";
  if (typeof error === "string") return safeText(error) ?? "";
  if (typeof error === "number" || typeof error === "boolean" || typeof error === "bigint") return String(error);
  if (typeof error === "symbol" || typeof error === "undefined") return typeof error;
  const message = safeText(safeGet(error, "message"));
  if (message !== undefined) return message;
  return "a value that is not an Error";
}

/**
 * The error the model reads for a failed handler or preflight. Works on any thrown value: objects
 * without a prototype, throwing `message` getters, proxies, symbols.
 */
export function describeFailure(name: string, error: unknown, signal: AbortSignal): ToolCallErrorInfo {
  if (signal.aborted) return { code: "aborted", message: `The call to "${name}" was cancelled.` };
  if (CatalogError.isInstance(error)) {
    const hasHint = (() => {
      try {
        return "hint" in error;
      } catch {
        return false;
      }
    })();
    const code = safeGet(error, "code");
    if (hasHint && typeof code === "string") {
      const message = safeText(safeGet(error, "message")) ?? `The tool "${name}" failed.`;
      const hint = safeText(safeGet(error, "hint"));
      return hint === undefined ? { code, message } : { code, message, hint };
    }
  }
  return { code: "tool_failed", message: `The tool "${name}" failed: ${describeThrown(error)}` };
}
