import { ToolError } from "../errors/tool-error.js";
import type { JsonSchema } from "./json-schema.js";
import type { SchemaCheckStage } from "./schema-check-protocol.js";
import { type SchemaCheckResult, schemaCheckWorker } from "./schema-check-worker.js";
import type { ValidationOutcome } from "./validation-issue.js";

let nextSchemaId = 0;

/**
 * A validator for an untrusted JSON Schema (see `untrustedJsonSchema`): it compiles and checks in
 * the schema check thread, never on the host's thread, and fails a call with
 * `input_schema_too_slow` when a stage runs past `timeoutMs` (the thread's CPU time where Linux's
 * /proc gives it, with ten times it in wall time as a bound; wall time elsewhere) or makes the thread reach its heap
 * limit (the thread is stopped; the next job starts another). A schema that could not be compiled
 * (in time, or at all) fails every later call at once, with the same error: compiling it again
 * would cost the same. A slow check fails only that call: other arguments may check fast.
 */
export function createUntrustedJsonSchemaValidator(
  schema: JsonSchema,
  timeoutMs: number,
): (value: unknown) => Promise<ValidationOutcome> {
  const id = nextSchemaId++;
  // Defining the tool (an MCP server connecting) starts the thread; the first call finds it ready.
  schemaCheckWorker().prewarm();
  let unusable: Error | undefined;
  return async (value) => {
    if (unusable !== undefined) throw unusable;
    const result = await schemaCheckWorker().check(id, schema, value, timeoutMs);
    if (result.kind === "checked")
      return result.issues === undefined ? { ok: true, value } : { ok: false, issues: result.issues };
    const error = errorOf(result, timeoutMs);
    if (result.kind !== "unavailable" && result.stage === "compile") unusable = error;
    throw error;
  };
}

function errorOf(result: Exclude<SchemaCheckResult, { kind: "checked" }>, timeoutMs: number): Error {
  if (result.kind === "timeout") return tooSlow(result.stage, timeoutMs);
  if (result.kind === "out_of_memory") return tooCostly(result.stage, result.heapLimitMb);
  // Run maps any other exception to tool_failed ("an unusable input schema"), as for a trusted schema.
  return new Error(result.message);
}

function tooSlow(stage: SchemaCheckStage, timeoutMs: number): ToolError {
  if (stage === "compile") {
    return new ToolError(
      "input_schema_too_slow",
      `Compiling this tool's input schema took longer than ${timeoutMs} ms, so no call can be checked; the schema (from an MCP server or another untrusted source) is too complex.`,
      {
        hint: "Use another tool; this one stays unusable until its server simplifies its input schema.",
        data: { stage, timeoutMs },
      },
    );
  }
  return new ToolError(
    "input_schema_too_slow",
    `Checking these arguments against this tool's input schema took longer than ${timeoutMs} ms (its schema is too complex for them).`,
    { hint: "Call it again with smaller, less deeply nested arguments, or use another tool.", data: { stage, timeoutMs } },
  );
}

/** The stage made the validator allocate past its thread's heap limit (the thread was stopped). */
function tooCostly(stage: SchemaCheckStage, heapLimitMb: number): ToolError {
  if (stage === "compile") {
    return new ToolError(
      "input_schema_too_slow",
      `Compiling this tool's input schema needed more than the ${heapLimitMb} MB of memory it may use, so no call can be checked; the schema (from an MCP server or another untrusted source) is too complex.`,
      {
        hint: "Use another tool; this one stays unusable until its server simplifies its input schema.",
        data: { stage, heapLimitMb },
      },
    );
  }
  return new ToolError(
    "input_schema_too_slow",
    `Checking these arguments against this tool's input schema needed more than the ${heapLimitMb} MB of memory it may use (its schema is too complex for them).`,
    { hint: "Call it again with smaller, less deeply nested arguments, or use another tool.", data: { stage, heapLimitMb } },
  );
}
