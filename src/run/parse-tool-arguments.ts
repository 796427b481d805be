import { countOf } from "../errors/count-of.js";
import { measureJson } from "../tool/json-size.js";
import { nestingDepth } from "../tool/nesting-depth.js";
import type { ToolCallErrorInfo } from "../tool/tool-call-result.js";
import { copyPlainJson } from "./plain-json-copy.js";

/** Arguments as an object, or the error to give the model. */
export type ParsedArguments =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly error: ToolCallErrorInfo };

function tooLarge(size: string, maxLength: number): ParsedArguments {
  return {
    ok: false,
    error: {
      code: "input_too_large",
      message: `The arguments are ${size}; at most ${countOf(maxLength, "character")} (as JSON) are accepted.`,
      hint: "Send less at once, e.g. split the content over several calls.",
    },
  };
}

/**
 * Accepts what providers send: an object, or a JSON string of one. An empty string, `null` and
 * `undefined` mean "no arguments" (`{}`), which models send for tools without parameters. Both
 * forms are bounded by `maxLength`: a string by its length, an object (the Anthropic adapter
 * passes `tool_use.input` as one) by an estimate of its JSON size, computed with early exit, and
 * then by the length of its JSON. An object is taken as the JSON data it stands for, read once:
 * every later step (validation, the approval a person sees and its digest, the handler, the saved
 * state) sees that same plain copy. Taken as it was, a getter or proxy answering differently on
 * each read showed a person `"staging"` for approval and ran the handler with `"prod"`.
 */
export function parseToolArguments(args: unknown, maxLength: number, name: string): ParsedArguments {
  if (args === undefined || args === null || args === "") return { ok: true, value: {} };
  if (typeof args !== "string") return snapshotArguments(args, maxLength, name);
  if (args.length > maxLength) return tooLarge(`${countOf(args.length, "character")} long`, maxLength);
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

/**
 * Arguments handed over as an object JSON cannot hold (a host's or an adapter's doing: text from
 * a model is always JSON), as `invalid_input` naming the cause. Told as `input_too_large`, a
 * small cyclic object read as too large, and the advice to send less at once could not help.
 */
function notJson(why: string): ParsedArguments {
  return {
    ok: false,
    error: {
      code: "invalid_input",
      message: `The arguments are not JSON data: ${why}.`,
      hint: "Send the arguments as one JSON object of plain values.",
      issues: [{ path: "", message: `not JSON data: ${why}` }],
    },
  };
}

const CYCLE = "an object in them contains itself (a cycle)";
const NOT_JSON_VALUE = "they hold a value JSON cannot (a function, a symbol or a BigInt)";
const UNREADABLE = "reading them threw (a getter, or a proxy's trap, or a revoked proxy)";

/** An object argument as the plain JSON data it stands for, each property read once; bounded as above. */
function snapshotArguments(args: unknown, maxLength: number, name: string): ParsedArguments {
  const overLimit = tooLarge("larger than the limit", maxLength);
  let json: string | undefined;
  try {
    // Measured first with early exit: a 2^32 - 1 sparse array must not be turned into text.
    const size = measureJson(args, maxLength);
    if (size === "cycle") return notJson(CYCLE);
    if (size === "not_json") return notJson(NOT_JSON_VALUE);
    if (size > maxLength) return overLimit;
    // Plain data is copied as it is (what the round trip below gives for it, without the text).
    const plain = copyPlainJson(args, maxLength);
    if (plain !== undefined) return { ok: true, value: plain.value };
    json = JSON.stringify(args);
  } catch (error) {
    // Nested past what JSON.stringify walks (a few thousand levels): the model hears the depth,
    // as for a JSON string nested as deeply. Anything else (a getter or proxy trap that threw, a
    // toJSON giving a cycle or a BigInt): not input a model could have sent.
    if (error instanceof RangeError) return { ok: false, error: nestedTooDeeply(name, "too deeply") };
    if (error instanceof TypeError && /circular/i.test(error.message)) return notJson(CYCLE);
    if (error instanceof TypeError && /BigInt/.test(error.message)) return notJson(NOT_JSON_VALUE);
    return notJson(UNREADABLE);
  }
  // A toJSON (or the value itself) that gives nothing JSON writes.
  if (json === undefined) return notJson(NOT_JSON_VALUE);
  // Read again by JSON.stringify: a getter may have answered larger than it measured.
  if (json.length > maxLength) return overLimit;
  return { ok: true, value: JSON.parse(json) };
}

function nestedTooDeeply(name: string, depth: string): ToolCallErrorInfo {
  return {
    code: "invalid_input",
    message: `The arguments of "${name}" are nested ${depth}, too deep to check.`,
    hint: "Send the arguments nested less deeply.",
    issues: [{ path: "", message: `nested ${depth}` }],
  };
}

/**
 * Nesting below which a validator's stack overflow is not blamed on the arguments: recursive
 * validators (ajv, zod) check about a thousand levels on Node's default stack.
 */
const DEEP_NESTING = 100;

/**
 * The error to give the model when validating `value` overflowed the stack because the arguments
 * are nested deeply, or `undefined` when `error` is something else (then the schema is at fault).
 */
export function tooDeepToCheck(name: string, error: unknown, value: unknown): ToolCallErrorInfo | undefined {
  if (!(error instanceof RangeError)) return undefined;
  const depth = nestingDepth(value);
  if (depth < DEEP_NESTING) return undefined;
  return nestedTooDeeply(name, `${depth} levels deep`);
}
