import type { CompiledSchema } from "../tool/input-schema.js";
import type { ToolCallErrorInfo } from "../tool/tool-call-result.js";
import { isToolContent, type ToolContentPart } from "../tool/tool-content.js";
import { capContentParts, contentPartsAsText } from "./cap-content-parts.js";
import { condenseText } from "./condense-text.js";
import { capText, toJsonSafe } from "./json-safe-output.js";
import { runUntilAborted } from "./run-until-aborted.js";

/** The limits a run applies to outputs. */
export interface OutputLimits {
  /** Text (and JSON of objects) longer than this is condensed to head and tail. */
  readonly condenseThreshold: number;
  /** Most decoded bytes of binary parts. */
  readonly maxBinaryBytes: number;
}

/**
 * The `redact` hook as output finishing calls it: on each whole text (already cut at 8 Mi
 * characters), never throwing, returning well-formed text (see `redact-result.ts`).
 */
export type OutputRedactor = (text: string, field: "output" | "content") => string;

/** What a redaction walk that cannot convert leaves: fail closed, never the original text. */
const REDACTION_FAILED = "[redacted: the redaction hook failed]";

/** An output ready to report, or the error to report instead. */
export type FinishedOutput =
  | { readonly ok: true; readonly output: unknown; readonly content?: readonly ToolContentPart[] }
  | { readonly ok: false; readonly error: ToolCallErrorInfo };

/**
 * Turns what a handler returned into what the model gets, before the call is called a success:
 * JSON-safe (no BigInt, no cycles: formatting can never throw afterwards), checked against the
 * tool's `outputSchema`, and bounded: a string, or an object whose JSON is longer than
 * `condenseThreshold`, is condensed (an object then becomes the condensed text of its JSON);
 * every string well-formed (no lone surrogate, which fails a provider's request).
 *
 * `redact` runs between the 8 Mi cap and condensing: it sees each whole string (of an output
 * capped at 8 Mi characters of JSON), and condensing cuts what it returned. Condensing first cut
 * a secret at the head/tail boundary, and a `replaceAll(secret)` hook matched neither piece.
 */
export async function finishOutput(
  name: string,
  output: unknown,
  validateOutput: CompiledSchema["validate"] | undefined,
  limits: OutputLimits,
  redact?: OutputRedactor,
  signal?: AbortSignal,
): Promise<FinishedOutput> {
  let isContent: boolean;
  try {
    isContent = isToolContent(output);
  } catch {
    isContent = false;
  }
  if (isContent) {
    const rich = output as { readonly parts: readonly ToolContentPart[]; readonly output?: unknown };
    const content = capContentParts(rich.parts, limits, redact && ((text) => redact(text, "content")));
    const inner = rich.output === undefined ? { ok: true as const, value: contentPartsAsText(content) } : toJsonSafe(rich.output);
    if (!inner.ok) return unusable(name, inner.reason);
    return { ok: true, output: condenseValue(redactValue(inner.value, redact), limits.condenseThreshold), content };
  }
  if (typeof output === "string") {
    // Held to the cap an object's JSON has: with condensing off, a 1 GB string went out whole.
    const text = redact === undefined ? capText(output) : capText(redact(capText(output), "output"));
    return { ok: true, output: condenseText(text, limits.condenseThreshold) };
  }
  const safe = toJsonSafe(output);
  if (!safe.ok) return unusable(name, safe.reason);
  if (validateOutput !== undefined) {
    let checked: Awaited<ReturnType<typeof validateOutput>>;
    try {
      // A host's validator may never settle: the call still ends when its signal fires.
      checked =
        signal === undefined
          ? await validateOutput(safe.value)
          : (await runUntilAborted(() => validateOutput(safe.value), signal)).value;
    } catch (error) {
      if (signal?.aborted) throw error;
      checked = { ok: false, issues: [{ path: "", message: "the output schema could not be applied" }] };
    }
    if (!checked.ok) {
      const issues = checked.issues.map((issue) => `${issue.path || "(output)"}: ${issue.message}`).join("; ");
      return {
        ok: false,
        error: {
          code: "invalid_output",
          message: `The tool "${name}" returned output that does not match its output schema: ${issues}.`,
          hint: "This is a fault of the tool, not of your call; try another approach or report it.",
        },
      };
    }
  }
  return { ok: true, output: condenseValue(redactValue(safe.value, redact), limits.condenseThreshold) };
}

/**
 * A JSON-safe value (within 8 Mi characters of JSON) with each string passed through `redact`;
 * what the hook returns is held to the same 8 Mi, and the hook is not called once they are spent.
 */
function redactValue(value: unknown, redact: OutputRedactor | undefined): unknown {
  if (redact === undefined) return value;
  const redacted = toJsonSafe(value, undefined, (text) => redact(text, "output"));
  // The value is JSON-safe already, so converting it cannot fail; fail closed if it ever does.
  return redacted.ok ? redacted.value : REDACTION_FAILED;
}

/** Condenses a JSON-safe value: strings by length, objects by the length of their JSON. */
export function condenseValue(value: unknown, threshold: number): unknown {
  if (typeof value === "string") return condenseText(value, threshold);
  if (typeof value !== "object" || value === null || !Number.isFinite(threshold)) return value;
  const json = JSON.stringify(value);
  return json.length > threshold ? condenseText(json, threshold) : value;
}

function unusable(name: string, reason: string): FinishedOutput {
  return {
    ok: false,
    error: {
      code: "invalid_output",
      message: `The tool "${name}" returned output that cannot be sent (${reason}).`,
      hint: "This is a fault of the tool, not of your call; try another approach or report it.",
    },
  };
}
