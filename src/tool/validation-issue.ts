/**
 * One thing wrong with a tool call's input, in a form the model can act on.
 *
 * @public
 */
export interface ValidationIssue {
  /** Where, as a dotted path (`"edits[0].old_text"`); `""` for the input as a whole. */
  readonly path: string;
  /** What is wrong, e.g. `"expected string, received number"`. */
  readonly message: string;
}

/** Result of validating an input: the parsed value, or the issues. */
export type ValidationOutcome =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly issues: readonly ValidationIssue[] };

/** Joins path segments as `a.b[0].c`. */
export function formatIssuePath(segments: readonly PropertyKey[]): string {
  let path = "";
  for (const segment of segments) {
    if (typeof segment === "number") path += `[${segment}]`;
    else path += path === "" ? String(segment) : `.${String(segment)}`;
  }
  return path;
}
