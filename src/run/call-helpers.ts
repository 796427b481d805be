import { CatalogError } from "../errors/catalog-error.js";
import { ConfigurationError } from "../errors/configuration-error.js";
import { ToolError } from "../errors/tool-error.js";
import type { ToolCallErrorInfo } from "./tool-call-result.js";

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

/** Runs `task`, settling early with the abort reason when `signal` fires (a handler may ignore it). */
export async function runUntilAborted<T>(task: () => T | Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) throw signal.reason;
  const pending = task();
  if (!(pending instanceof Promise)) return pending;
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
  });
  try {
    return await Promise.race([pending, aborted]);
  } finally {
    signal.removeEventListener("abort", onAbort as () => void);
  }
}

export function describeFailure(name: string, error: unknown, signal: AbortSignal): ToolCallErrorInfo {
  if (signal.aborted) return { code: "aborted", message: `The call to "${name}" was cancelled.` };
  if (error instanceof ToolError || (CatalogError.isInstance(error) && "hint" in error)) {
    const toolError = error as ToolError;
    return toolError.hint === undefined
      ? { code: toolError.code, message: toolError.message }
      : { code: toolError.code, message: toolError.message, hint: toolError.hint };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { code: "tool_failed", message: `The tool "${name}" failed: ${message}` };
}
