import { MAX_TIMER_DELAY_MS } from "../errors/check-number-option.js";
import { ConfigurationError } from "../errors/configuration-error.js";
import type { JsonSchema } from "./json-schema.js";

/**
 * The default time limit, in ms, for compiling an untrusted schema and, separately, for checking
 * one call's arguments against it: CPU time of the checking thread where it can be measured
 * (Linux), with ten times as much wall time as the bound on a thread that does not get to run.
 */
export const DEFAULT_UNTRUSTED_SCHEMA_TIMEOUT_MS = 5_000;

// Symbol.for: the ESM and CommonJS copies of the package (or two bundled copies) read one mark.
const UNTRUSTED = Symbol.for("agent-tool-catalog.untrustedJsonSchema");

/**
 * Options of {@link untrustedJsonSchema}.
 *
 * @public
 */
export interface UntrustedJsonSchemaOptions {
  /**
   * How long compiling the schema, and then checking one call's arguments against it, may each
   * take off the host's thread before the call fails with `input_schema_too_slow`, in ms. Counted
   * in the CPU time the checking thread runs where it can be measured (Linux, from /proc), so a
   * loaded machine does not use a schema's budget; a stage also ends after ten times this in wall
   * time (a thread that cannot get a CPU). Elsewhere the limit is wall time.
   * @defaultValue 5000
   */
  readonly timeoutMs?: number;
}

/** What the mark carries. */
export interface UntrustedJsonSchemaMark {
  /** The time limit of each stage, ms (the checking thread's CPU time where measurable). */
  readonly timeoutMs: number;
}

/**
 * Marks a JSON Schema as coming from somewhere the host does not control (an MCP server does
 * this for every tool it lists). Such a schema is compiled and checked in a worker thread with a
 * time limit (the thread's CPU time where measurable, see `timeoutMs`), never on the host's thread: a schema built to make the validator slow (hundreds of
 * nested recursive `$ref`s, or `anyOf` branches that re-check a nested value twice per level)
 * then fails its calls with `input_schema_too_slow` instead of blocking the host's event loop for
 * seconds or hours. Trusted schemas (zod, or a plain JSON Schema given to `defineTool`) stay on
 * the in-thread path, which is faster per call.
 *
 * Returns a shallow copy of `schema` that is still a JSON Schema (providers see the same
 * schema); the mark is a non-enumerable symbol property that JSON never carries.
 *
 * @example
 * ```ts
 * const tool = defineTool({
 *   name: "plugin_tool",
 *   description: "A tool whose schema comes from a third-party plugin.",
 *   inputSchema: untrustedJsonSchema({ type: "object", properties: { query: { type: "string" } } }),
 *   handler: (input) => JSON.stringify(input),
 * });
 * ```
 * @throws ConfigurationError (`invalid_tool_config`) when `timeoutMs` is not a positive number of
 *   ms at most 2^31 - 1.
 * @public
 */
export function untrustedJsonSchema<const Schema extends JsonSchema>(
  schema: Schema,
  options: UntrustedJsonSchemaOptions = {},
): Schema {
  const timeoutMs = options.timeoutMs === undefined ? DEFAULT_UNTRUSTED_SCHEMA_TIMEOUT_MS : options.timeoutMs;
  // Past 2^31 - 1 ms Node fires the stage's timer at once: every call would be too slow.
  if (typeof timeoutMs !== "number" || !(timeoutMs > 0) || !(timeoutMs <= MAX_TIMER_DELAY_MS)) {
    throw new ConfigurationError(
      "invalid_tool_config",
      `untrustedJsonSchema: timeoutMs must be a positive number of ms, at most ${MAX_TIMER_DELAY_MS}; got ${String(timeoutMs)}.`,
      { data: { field: "timeoutMs" } },
    );
  }
  const mark: UntrustedJsonSchemaMark = Object.freeze({ timeoutMs });
  return Object.defineProperty({ ...schema }, UNTRUSTED, { value: mark, enumerable: false }) as Schema;
}

/** The mark {@link untrustedJsonSchema} put on `schema`, or `undefined` for a trusted schema. */
export function untrustedMarkOf(schema: object): UntrustedJsonSchemaMark | undefined {
  const mark = (schema as { [UNTRUSTED]?: unknown })[UNTRUSTED];
  return typeof mark === "object" && mark !== null ? (mark as UntrustedJsonSchemaMark) : undefined;
}
