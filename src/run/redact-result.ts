import type { ToolCallErrorInfo, ToolCallResult } from "../tool/tool-call-result.js";
import type { ToolContentPart } from "../tool/tool-content.js";
import { wellFormed } from "./well-formed-text.js";

/**
 * Where a redacted text goes to the model.
 *
 * @public
 */
export interface RedactionSite {
  /** The tool the result belongs to. */
  readonly tool: string;
  /** `output` (a string anywhere in it), `content` (a text part), or `error` (message, hint, issues). */
  readonly field: "output" | "content" | "error";
}

/**
 * Rewrites text on its way to the model (and to traces), e.g. to mask secrets that a handler's
 * exception or output carries. Called once per string; must return the text to send.
 * @public
 */
export type Redactor = (text: string, site: RedactionSite) => string;

/** What a redactor that throws leaves: fail closed, never the original text. */
const REDACTION_FAILED = "[redacted: the redaction hook failed]";

function apply(redact: Redactor, text: string, site: RedactionSite): string {
  try {
    const out = redact(text, site);
    // A hook that cuts text (a length cap) can split an emoji: the result is made well-formed
    // again, as everything else a run reports is (see well-formed-text.ts).
    return typeof out === "string" ? wellFormed(out) : REDACTION_FAILED;
  } catch {
    return REDACTION_FAILED;
  }
}

function redactValue(redact: Redactor, value: unknown, site: RedactionSite): unknown {
  if (typeof value === "string") return apply(redact, value, site);
  if (Array.isArray(value)) return value.map((item) => redactValue(redact, item, site));
  if (typeof value !== "object" || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, entry] of Object.entries(value)) {
    Object.defineProperty(out, key, {
      value: redactValue(redact, entry, site),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

function redactError(redact: Redactor, error: ToolCallErrorInfo, tool: string): ToolCallErrorInfo {
  const site: RedactionSite = { tool, field: "error" };
  return {
    ...error,
    message: apply(redact, error.message, site),
    ...(error.hint === undefined ? {} : { hint: apply(redact, error.hint, site) }),
    ...(error.issues === undefined
      ? {}
      : { issues: error.issues.map((issue) => ({ path: issue.path, message: apply(redact, issue.message, site) })) }),
  };
}

function redactParts(redact: Redactor, parts: readonly ToolContentPart[], tool: string): ToolContentPart[] {
  return parts.map((part) =>
    part.type === "text" ? { ...part, text: apply(redact, part.text, { tool, field: "content" }) } : part,
  );
}

/**
 * A result with every text the model reads passed through `redact`: string outputs (and strings
 * inside object outputs), text parts, and the error's message, hint and issue messages. Codes,
 * names, ids and binary parts are left as they are.
 */
export function redactResult(redact: Redactor | undefined, result: ToolCallResult): ToolCallResult {
  if (redact === undefined) return result;
  if (!result.ok) return { ...result, error: redactError(redact, result.error, result.tool) };
  const output = redactValue(redact, result.output, { tool: result.tool, field: "output" });
  return result.content === undefined
    ? { ...result, output }
    : { ...result, output, content: redactParts(redact, result.content, result.tool) };
}
