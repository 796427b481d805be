// What the model reads when a handler throws: any thrown value, described safely and capped.
import { CatalogError } from "../errors/catalog-error.js";
import type { ToolCallErrorInfo } from "../tool/tool-call-result.js";
import { systemErrorFailure } from "./system-error-failure.js";
import { pairSafeEnd, wellFormed } from "./well-formed-text.js";

/** Longest message or hint taken from a handler's error (its text reaches the model). */
export const MAX_ERROR_TEXT_LENGTH = 2000;

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
  return wellFormed(
    value.length > MAX_ERROR_TEXT_LENGTH ? `${value.slice(0, pairSafeEnd(value, MAX_ERROR_TEXT_LENGTH))}… (cut)` : value,
  );
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
 * `issues` for an `invalid_input` a handler raised about one field (`data: { field }`), so it
 * names the field where schema validation would: a model reads every `invalid_input` the same way.
 */
function fieldIssues(code: string, error: unknown, message: string): { path: string; message: string }[] | undefined {
  if (code !== "invalid_input") return undefined;
  const cap = (text: string, length: number) => (text.length > length ? `${text.slice(0, length - 1)}…` : text);
  // A handler that relays another call's validation (toolbox running a listed tool) hands its
  // issues on whole (`data: { issues }`), not only its message.
  const relayed = safeGet(safeGet(error, "data"), "issues");
  if (Array.isArray(relayed)) {
    const issues = relayed.slice(0, 20).flatMap((issue: unknown) => {
      const path = safeGet(issue, "path");
      const text = safeGet(issue, "message");
      return typeof path === "string" && typeof text === "string" ? [{ path: cap(path, 120), message: cap(text, 200) }] : [];
    });
    if (issues.length > 0) return issues;
  }
  const field = safeGet(safeGet(error, "data"), "field");
  if (typeof field !== "string" || field === "") return undefined;
  return [{ path: cap(field, 120), message: cap(message, 200) }];
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
      const issues = fieldIssues(code, error, message);
      return { code, message, ...(hint === undefined ? {} : { hint }), ...(issues === undefined ? {} : { issues }) };
    }
  }
  return (
    systemErrorFailure(name, error) ?? { code: "tool_failed", message: `The tool "${name}" failed: ${describeThrown(error)}` }
  );
}
