import type { ToolCallErrorInfo, ToolCallResult } from "../tool/tool-call-result.js";
import type { ToolContentPart } from "../tool/tool-content.js";
import { condenseText } from "./condense-text.js";
import { MAX_ERROR_TEXT_LENGTH } from "./describe-failure.js";
import { condenseValue } from "./finish-output.js";
import { toJsonSafe } from "./json-safe-output.js";
import { pairSafeEnd, wellFormed } from "./well-formed-text.js";

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

/**
 * The output with each string passed through the hook, under the same caps as the handler's own
 * output: the caps ran before the hook, so a hook that makes text longer (a long marker, a hook
 * gone wrong) sent the model 40 Mi characters where 8 Mi is the most. The walk stops calling the
 * hook once 8 Mi characters of JSON are spent, then the output is condensed as before.
 */
function redactOutput(redact: Redactor, output: unknown, site: RedactionSite, condenseThreshold: number): unknown {
  const redacted = toJsonSafe(output, undefined, (text) => apply(redact, text, site));
  // The output is JSON-safe already, so converting it cannot fail; fail closed if it ever does.
  return condenseValue(redacted.ok ? redacted.value : REDACTION_FAILED, condenseThreshold);
}

/** A redacted error text cut at the error cap, or at the original's length when that was longer. */
function applyToErrorText(redact: Redactor, text: string, site: RedactionSite): string {
  const out = apply(redact, text, site);
  const limit = Math.max(MAX_ERROR_TEXT_LENGTH, text.length);
  return out.length > limit ? `${out.slice(0, pairSafeEnd(out, limit))}… (cut)` : out;
}

function redactError(redact: Redactor, error: ToolCallErrorInfo, tool: string): ToolCallErrorInfo {
  const site: RedactionSite = { tool, field: "error" };
  return {
    ...error,
    message: applyToErrorText(redact, error.message, site),
    ...(error.hint === undefined ? {} : { hint: applyToErrorText(redact, error.hint, site) }),
    ...(error.issues === undefined
      ? {}
      : {
          issues: error.issues.map((issue) => ({ path: issue.path, message: applyToErrorText(redact, issue.message, site) })),
        }),
  };
}

function redactParts(
  redact: Redactor,
  parts: readonly ToolContentPart[],
  tool: string,
  condenseThreshold: number,
): ToolContentPart[] {
  return parts.map((part) =>
    part.type === "text"
      ? { ...part, text: condenseText(apply(redact, part.text, { tool, field: "content" }), condenseThreshold) }
      : part,
  );
}

/**
 * A result with every text the model reads passed through `redact`: string outputs (and strings
 * inside object outputs), text parts, and the error's message, hint and issue messages. Codes,
 * names, ids and binary parts are left as they are. What the hook returns is held to the caps the
 * handler's text was: an output to 8 Mi characters of JSON and `condenseThreshold`, a text part to
 * `condenseThreshold`, an error text to the error cap (or its original length when longer).
 */
export function redactResult(redact: Redactor | undefined, result: ToolCallResult, condenseThreshold: number): ToolCallResult {
  if (redact === undefined) return result;
  if (!result.ok) return { ...result, error: redactError(redact, result.error, result.tool) };
  const output = redactOutput(redact, result.output, { tool: result.tool, field: "output" }, condenseThreshold);
  return result.content === undefined
    ? { ...result, output }
    : { ...result, output, content: redactParts(redact, result.content, result.tool, condenseThreshold) };
}
