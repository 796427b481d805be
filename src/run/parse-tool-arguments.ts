import type { ToolCallErrorInfo } from "./tool-call-result.js";

/** Arguments as an object, or the error to give the model. */
export type ParsedArguments =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly error: ToolCallErrorInfo };

/**
 * Accepts what providers send: an object, or a JSON string of one. An empty string, `null` and
 * `undefined` mean "no arguments" (`{}`), which models send for tools without parameters.
 */
export function parseToolArguments(args: unknown, maxLength: number): ParsedArguments {
  if (args === undefined || args === null || args === "") return { ok: true, value: {} };
  if (typeof args !== "string") return { ok: true, value: args };
  if (args.length > maxLength) {
    return {
      ok: false,
      error: {
        code: "input_too_large",
        message: `The arguments are ${args.length} characters long; at most ${maxLength} are accepted.`,
        hint: "Send less at once, e.g. split the content over several calls.",
      },
    };
  }
  try {
    return { ok: true, value: JSON.parse(args) };
  } catch (error) {
    return {
      ok: false,
      error: {
        code: "invalid_input",
        message: `The arguments are not valid JSON: ${(error as Error).message}.`,
        hint: "Send the arguments as one JSON object.",
        issues: [{ path: "", message: "not valid JSON" }],
      },
    };
  }
}
