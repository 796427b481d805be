import { estimateJsonSize } from "../tool/json-size.js";
import type { ToolCallErrorInfo } from "../tool/tool-call-result.js";

/** Arguments as an object, or the error to give the model. */
export type ParsedArguments =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly error: ToolCallErrorInfo };

function tooLarge(size: string, maxLength: number): ParsedArguments {
  return {
    ok: false,
    error: {
      code: "input_too_large",
      message: `The arguments are ${size}; at most ${maxLength} characters (as JSON) are accepted.`,
      hint: "Send less at once, e.g. split the content over several calls.",
    },
  };
}

/**
 * Accepts what providers send: an object, or a JSON string of one. An empty string, `null` and
 * `undefined` mean "no arguments" (`{}`), which models send for tools without parameters. Both
 * forms are bounded by `maxLength`: a string by its length, an object (the Anthropic adapter
 * passes `tool_use.input` as one) by an estimate of its JSON size, computed with early exit.
 */
export function parseToolArguments(args: unknown, maxLength: number): ParsedArguments {
  if (args === undefined || args === null || args === "") return { ok: true, value: {} };
  if (typeof args !== "string") {
    let size: number;
    try {
      size = estimateJsonSize(args, maxLength);
    } catch {
      // A getter or proxy trap threw while measuring: not input a model could have sent.
      size = Number.POSITIVE_INFINITY;
    }
    if (size > maxLength) return tooLarge("larger than the limit or not plain JSON", maxLength);
    return { ok: true, value: args };
  }
  if (args.length > maxLength) return tooLarge(`${args.length} characters long`, maxLength);
  try {
    return { ok: true, value: JSON.parse(args) };
  } catch {
    return {
      ok: false,
      error: {
        code: "invalid_input",
        // The parser's message quotes the input; say where instead.
        message: "The arguments are not valid JSON.",
        hint: "Send the arguments as one JSON object.",
        issues: [{ path: "", message: "not valid JSON" }],
      },
    };
  }
}
