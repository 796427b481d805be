import type { CompiledSchema } from "../tool/input-schema.js";
import type { ToolCallErrorInfo } from "../tool/tool-call-result.js";
import { isToolContent, type ToolContentPart } from "../tool/tool-content.js";
import { capContentParts, contentPartsAsText } from "./cap-content-parts.js";
import { condenseText } from "./condense-text.js";
import { toJsonSafe } from "./json-safe-output.js";
import { wellFormed } from "./well-formed-text.js";

/** The limits a run applies to outputs. */
export interface OutputLimits {
  /** Text (and JSON of objects) longer than this is condensed to head and tail. */
  readonly condenseThreshold: number;
  /** Most decoded bytes of binary parts. */
  readonly maxBinaryBytes: number;
}

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
 */
export async function finishOutput(
  name: string,
  output: unknown,
  validateOutput: CompiledSchema["validate"] | undefined,
  limits: OutputLimits,
): Promise<FinishedOutput> {
  let isContent: boolean;
  try {
    isContent = isToolContent(output);
  } catch {
    isContent = false;
  }
  if (isContent) {
    const rich = output as { readonly parts: readonly ToolContentPart[]; readonly output?: unknown };
    const content = capContentParts(rich.parts, limits);
    const inner = rich.output === undefined ? { ok: true as const, value: contentPartsAsText(content) } : toJsonSafe(rich.output);
    if (!inner.ok) return unusable(name, inner.reason);
    return { ok: true, output: condenseValue(inner.value, limits.condenseThreshold), content };
  }
  if (typeof output === "string") return { ok: true, output: condenseText(wellFormed(output), limits.condenseThreshold) };
  const safe = toJsonSafe(output);
  if (!safe.ok) return unusable(name, safe.reason);
  if (validateOutput !== undefined) {
    let checked: Awaited<ReturnType<typeof validateOutput>>;
    try {
      checked = await validateOutput(safe.value);
    } catch {
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
  return { ok: true, output: condenseValue(safe.value, limits.condenseThreshold) };
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
