import type * as zod4 from "zod/v4/core";
import type { zodToJsonSchema } from "zod-to-json-schema";
import { boundIssues } from "./bound-issues.js";
import { frozenJsonCopy } from "./frozen-copy.js";
import type { JsonSchema } from "./json-schema.js";
import { explainUncompilableJsonSchema } from "./json-schema-references.js";
import { explainMalformedJsonSchema } from "./json-schema-structure.js";
import { ALL_ERRORS_INPUT_LIMIT, createJsonSchemaValidator, type JsonSchemaCompiler } from "./json-schema-validator.js";
import { estimateJsonSize } from "./json-size.js";
import { loadOnDemand } from "./load-on-demand.js";
import { settledNow, settleThenable } from "./settle-thenable.js";
import type { StandardSchemaV1 } from "./standard-schema.js";
import { untrustedMarkOf } from "./untrusted-json-schema.js";
import { createUntrustedJsonSchemaValidator } from "./untrusted-json-schema-validator.js";
import { formatIssuePath, type ValidationIssue, type ValidationOutcome } from "./validation-issue.js";

// Only zod 3 schemas need it; loaded by the first one compiled.
const zod3 = loadOnDemand<{ zodToJsonSchema: typeof zodToJsonSchema }>("zod-to-json-schema");
// Only zod 4 schemas without their own `toJSONSchema` (zod/mini, zod before 4.2) need it: the
// root entry does not import zod (about 0.1 s of a new process), and a zod 4 schema converts itself.
const zod4Core = loadOnDemand<{ toJSONSchema: typeof zod4.toJSONSchema }>("zod/v4/core");

const ZOD4_JSON_OPTIONS = { io: "input", unrepresentable: "any", target: "draft-7" } as const;

interface ConvertsItself {
  readonly toJSONSchema: (options: typeof ZOD4_JSON_OPTIONS) => unknown;
}

/** A schema turned into what the catalog needs: JSON Schema for providers, and a validator. */
export interface CompiledSchema {
  /** The JSON Schema sent to providers. */
  readonly jsonSchema: JsonSchema;
  /** Validates (and, for zod, parses) a value. May return a promise for async schemas. */
  readonly validate: (value: unknown) => ValidationOutcome | Promise<ValidationOutcome>;
  /** For a plain JSON Schema: a validator compiled by another compiler (a registry's). */
  readonly bind?: (compiler: JsonSchemaCompiler, jsonSchema: JsonSchema) => (value: unknown) => ValidationOutcome;
}

/** The result of compiling: the schema, or why it cannot be used. */
export type CompileSchemaResult =
  | { readonly ok: true; readonly schema: CompiledSchema }
  | { readonly ok: false; readonly reason: string };

/** True when `value` implements the Standard Schema interface. */
export function isStandardSchema(value: unknown): value is StandardSchemaV1 {
  return (
    (typeof value === "object" || typeof value === "function") &&
    value !== null &&
    "~standard" in value &&
    typeof (value as StandardSchemaV1)["~standard"]?.validate === "function"
  );
}

/**
 * Compiles a Standard Schema or a plain JSON Schema. The JSON Schema is a frozen deep copy; plain
 * JSON Schemas are compiled (lazily) by `compiler`, the registry's, or, when marked untrusted, by
 * the schema check thread.
 */
export function compileSchema(schema: unknown, compiler: JsonSchemaCompiler): CompileSchemaResult {
  if (isStandardSchema(schema)) return compileStandardSchema(schema);
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) {
    return {
      ok: false,
      reason: `expected a zod schema, a Standard Schema or a JSON Schema object, got ${describeValue(schema)}`,
    };
  }
  let jsonSchema: JsonSchema;
  try {
    jsonSchema = frozenJsonCopy(schema as JsonSchema);
  } catch (error) {
    return { ok: false, reason: `not plain JSON data: ${(error as Error).message}` };
  }
  // A structural check only: Ajv (and its meta-schema check) loads at the first call, not at the
  // first definition (about 130-150 ms of a new process for tools that may never be called).
  const invalid = explainMalformedJsonSchema(jsonSchema);
  if (invalid !== undefined) return { ok: false, reason: `not a valid JSON Schema: ${invalid}` };
  // Compiled lazily: what would only fail at the first call is refused now, where the host sees it.
  const uncompilable = explainUncompilableJsonSchema(jsonSchema);
  if (uncompilable !== undefined) return { ok: false, reason: `the validator cannot compile it: ${uncompilable}` };
  const untrusted = untrustedMarkOf(schema);
  if (untrusted !== undefined) {
    // Compiled and checked off the host's thread, with a time limit (untrustedJsonSchema).
    return { ok: true, schema: { jsonSchema, validate: createUntrustedJsonSchemaValidator(jsonSchema, untrusted.timeoutMs) } };
  }
  return { ok: true, schema: { jsonSchema, validate: bindJsonSchema(compiler, jsonSchema), bind: bindJsonSchema } };
}

// Only compared with ALL_ERRORS_INPUT_LIMIT: the walk stops there (a sparse array's 2^32 - 1
// holes are never walked).
const sizeOf = (value: unknown) => estimateJsonSize(value, ALL_ERRORS_INPUT_LIMIT);

/**
 * A lazy validator of `jsonSchema` in `compiler`. Shared by every schema, not a closure per
 * schema: a registry of 100,000 tools kept three closures for each, and every full collection
 * walked them.
 */
function bindJsonSchema(compiler: JsonSchemaCompiler, jsonSchema: JsonSchema): (value: unknown) => ValidationOutcome {
  return createJsonSchemaValidator(jsonSchema, compiler, sizeOf);
}

function compileStandardSchema(schema: StandardSchemaV1): CompileSchemaResult {
  const converted = standardSchemaToJson(schema);
  if (!converted.ok) return converted;
  const props = schema["~standard"];
  const validate = (value: unknown): ValidationOutcome | Promise<ValidationOutcome> => {
    const result = props.validate(value);
    // Any thenable, not only this realm's Promise: a `vm` or worker-made promise read as a plain
    // result has no `issues`, and a refusing check passed.
    if (settledNow(result) !== undefined) return toOutcome(result as StandardSchemaV1.Result<unknown>);
    return settleThenable<StandardSchemaV1.Result<unknown>>(result).then((settled) => toOutcome(settled.value));
  };
  let jsonSchema: JsonSchema;
  try {
    jsonSchema = frozenJsonCopy(converted.jsonSchema);
  } catch (error) {
    return { ok: false, reason: `its JSON Schema is not plain JSON data: ${(error as Error).message}` };
  }
  return { ok: true, schema: { jsonSchema, validate } };
}

function toOutcome(result: StandardSchemaV1.Result<unknown>): ValidationOutcome {
  if (result.issues === undefined) return { ok: true, value: result.value };
  return { ok: false, issues: boundIssues(standardIssues(result.issues)) };
}

/** Maps issues one at a time, so that capping them never maps the hundred thousand it drops. */
function* standardIssues(issues: ReadonlyArray<StandardSchemaV1.Issue>): Generator<ValidationIssue> {
  for (const issue of issues) {
    yield {
      path: formatIssuePath(
        (issue.path ?? []).map((segment) => (typeof segment === "object" && segment !== null ? segment.key : segment)),
      ),
      message: issue.message,
    };
  }
}

type JsonConversion = { readonly ok: true; readonly jsonSchema: JsonSchema } | { readonly ok: false; readonly reason: string };

interface StandardJsonSchemaProps {
  readonly jsonSchema?: { readonly input?: (options: { target: string }) => unknown };
}

function standardSchemaToJson(schema: StandardSchemaV1): JsonConversion {
  try {
    if ("_zod" in schema) {
      // Zod 4 (and zod/mini): describe what the caller may send, so defaults stay optional.
      const own = (schema as Partial<ConvertsItself>).toJSONSchema;
      const json = (
        typeof own === "function"
          ? own.call(schema, ZOD4_JSON_OPTIONS)
          : zod4Core().toJSONSchema(schema as unknown as zod4.$ZodType, ZOD4_JSON_OPTIONS)
      ) as JsonSchema;
      return { ok: true, jsonSchema: withoutMetaSchema(json) };
    }
    if ("_def" in schema && schema["~standard"].vendor === "zod") {
      const json = zod3().zodToJsonSchema(schema as never, {
        $refStrategy: "none",
        target: "jsonSchema7",
        pipeStrategy: "input",
        effectStrategy: "input",
      }) as JsonSchema;
      return { ok: true, jsonSchema: withoutMetaSchema(json) };
    }
    const standardJson = (schema["~standard"] as StandardJsonSchemaProps).jsonSchema;
    if (typeof standardJson?.input === "function") {
      return { ok: true, jsonSchema: withoutMetaSchema(standardJson.input({ target: "draft-07" }) as JsonSchema) };
    }
  } catch (error) {
    return { ok: false, reason: `its JSON Schema could not be generated: ${(error as Error).message}` };
  }
  return {
    ok: false,
    reason: `a ${schema["~standard"].vendor} schema has no JSON Schema converter; use zod, a Standard JSON Schema, or a plain JSON Schema`,
  };
}

function withoutMetaSchema(schema: JsonSchema): JsonSchema {
  const { $schema: _ignored, ...rest } = schema;
  return withoutSafeIntegerBounds(rest) as JsonSchema;
}

/**
 * Drops the `±9007199254740991` bounds zod 4 puts on every `.int()`: they say nothing to a model
 * and cost tokens on every request (validation still uses the zod schema itself).
 */
function withoutSafeIntegerBounds(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutSafeIntegerBounds);
  if (typeof value !== "object" || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, entry] of Object.entries(value)) {
    if ((key === "maximum" && entry === Number.MAX_SAFE_INTEGER) || (key === "minimum" && entry === Number.MIN_SAFE_INTEGER))
      continue;
    // Defined, not assigned: a property named "__proto__" (round 12b) would set the prototype.
    Object.defineProperty(out, key, {
      value: withoutSafeIntegerBounds(entry),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value;
}
