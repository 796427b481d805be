import type { ToolCallErrorInfo, ToolCallFailure } from "../tool/tool-call-result.js";
import { MAX_ERROR_TEXT_LENGTH } from "./describe-failure.js";
import type { OutputRedactor } from "./finish-output.js";
import { pairSafeEnd, wellFormed } from "./well-formed-text.js";

/**
 * Where a redacted text goes to the model.
 *
 * @public
 */
export interface RedactionSite {
  /** The tool the result belongs to. */
  readonly tool: string;
  /** `output` (a string or an object key anywhere in it), `content` (a text part), or `error` (message, hint, issues). */
  readonly field: "output" | "content" | "error";
}

/**
 * Rewrites text on its way to the model (and to traces), e.g. to mask secrets that a handler's
 * exception or output carries. Called once per string (an object output's keys included); must
 * return the text to send.
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

/**
 * The hook as output finishing calls it (`finishOutput`, which runs it on whole texts before
 * condensing them): fail closed, well-formed.
 */
export function outputRedactor(redact: Redactor | undefined, tool: string): OutputRedactor | undefined {
  return redact === undefined ? undefined : (text, field) => apply(redact, text, { tool, field });
}

/**
 * A failed call's error with every text the model reads passed through `redact`: the message,
 * hint and issue messages (codes are left as they are), each held to the error cap (or its
 * original length when longer). Outputs and text parts are redacted by `finishOutput`, on the
 * whole text before condensing, through {@link outputRedactor}.
 */
export function redactFailure(redact: Redactor | undefined, result: ToolCallFailure): ToolCallFailure {
  return redact === undefined ? result : { ...result, error: redactError(redact, result.error, result.tool) };
}
