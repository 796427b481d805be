import type { Ajv, ErrorObject, ValidateFunction } from "ajv";
import type { Ajv2020 } from "ajv/dist/2020.js";
import { boundIssues } from "./bound-issues.js";
import type { JsonSchema } from "./json-schema.js";
import { loadOnDemand } from "./load-on-demand.js";
import type { ValidationIssue, ValidationOutcome } from "./validation-issue.js";

// Loaded by the first plain JSON Schema a registry checks or compiles, never by the root import.
const ajvDraft7 = loadOnDemand<{ Ajv: typeof Ajv }>("ajv");
const ajvDraft2020 = loadOnDemand<{ Ajv2020: typeof Ajv2020 }>("ajv/dist/2020.js");

const DRAFT_2020 = "https://json-schema.org/draft/2020-12/schema";

/**
 * Inputs up to this estimated JSON size get every issue (Ajv `allErrors`); larger ones stop at
 * the first, so a 2 MB array of bad elements costs one failed check, not a million error objects.
 */
export const ALL_ERRORS_INPUT_LIMIT = 64 * 1024;

function isDraft2020(schema: JsonSchema): boolean {
  return typeof schema.$schema === "string" && schema.$schema.startsWith(DRAFT_2020);
}

function newAjv(draft2020: boolean, allErrors: boolean): Ajv | Ajv2020 {
  const options = { strict: false, allErrors, validateFormats: false } as const;
  return draft2020 ? new (ajvDraft2020().Ajv2020)(options) : new (ajvDraft7().Ajv)(options);
}

/**
 * The Ajv instances of one registry. Ajv keeps every schema it compiled for as long as it lives,
 * so instances are owned by a registry and dropped with it: a host that makes a registry per
 * conversation, or whose MCP servers change their tools, does not grow without bound. Two
 * registries never share compiled schemas (nor clash on a schema `$id`).
 */
export class JsonSchemaCompiler {
  private readonly instances = new Map<string, Ajv | Ajv2020>();

  /** The Ajv for `schema`'s draft, stopping at the first error or collecting all. */
  ajv(schema: JsonSchema, allErrors: boolean): Ajv | Ajv2020 {
    const draft2020 = isDraft2020(schema);
    const key = `${draft2020 ? "2020" : "7"}:${allErrors ? "all" : "first"}`;
    let ajv = this.instances.get(key);
    if (ajv === undefined) {
      ajv = newAjv(draft2020, allErrors);
      this.instances.set(key, ajv);
    }
    return ajv;
  }
}

/**
 * A validator for a plain JSON Schema, compiled on first use (registering thousands of MCP tools
 * must not compile thousands of schemas that are never called) with the compiler `compilerOf`
 * gives at that time.
 */
export function createJsonSchemaValidator(
  schema: JsonSchema,
  compiler: JsonSchemaCompiler,
  sizeOf: (value: unknown) => number,
): (value: unknown) => ValidationOutcome {
  return validatorOf(
    () => compiler.ajv(schema, false).compile(schema),
    () => compiler.ajv(schema, true).compile(schema),
    sizeOf,
  );
}

/**
 * A validator from its two compiled forms, each compiled by its thunk on first need: stopping at
 * the first error (every call), and collecting all (calls that fail, with small input).
 */
export function validatorOf(
  compileFirst: () => ValidateFunction,
  compileAll: () => ValidateFunction,
  sizeOf: (value: unknown) => number,
): (value: unknown) => ValidationOutcome {
  let first: ValidateFunction | undefined;
  let all: ValidateFunction | undefined;
  return (value) => {
    first ??= compileFirst();
    if (first(value)) return { ok: true, value };
    if (sizeOf(value) > ALL_ERRORS_INPUT_LIMIT) {
      return { ok: false, issues: boundIssues([...(first.errors ?? []).map(toIssue), ...moreIssuesNotChecked()]) };
    }
    all ??= compileAll();
    all(value);
    const errors = all.errors ?? first.errors ?? [];
    return { ok: false, issues: boundIssues(lazyMap(errors, toIssue)) };
  };
}

function moreIssuesNotChecked(): ValidationIssue[] {
  return [{ path: "", message: "the input is large, so checking stopped at the first issue; there may be more" }];
}

function* lazyMap<T, U>(items: readonly T[], map: (item: T) => U): Generator<U> {
  for (const item of items) yield map(item);
}

function toIssue(error: ErrorObject): ValidationIssue {
  const segments = error.instancePath
    .split("/")
    .slice(1)
    .map((part) => part.replaceAll("~1", "/").replaceAll("~0", "~"))
    .map((part) => (/^\d+$/.test(part) ? `[${part}]` : part));
  let path = "";
  for (const segment of segments) path += segment.startsWith("[") || path === "" ? segment : `.${segment}`;
  const params = error.params as Record<string, unknown>;
  if (error.keyword === "required" && typeof params.missingProperty === "string") {
    const field = path === "" ? params.missingProperty : `${path}.${params.missingProperty}`;
    return { path: field, message: "required property is missing" };
  }
  if (error.keyword === "additionalProperties" && typeof params.additionalProperty === "string") {
    const field = path === "" ? params.additionalProperty : `${path}.${params.additionalProperty}`;
    return { path: field, message: "unknown property is not allowed" };
  }
  if (error.keyword === "enum" && Array.isArray(params.allowedValues)) {
    return { path, message: `must be one of ${params.allowedValues.map((v) => JSON.stringify(v)).join(", ")}` };
  }
  return { path, message: error.message ?? `fails ${error.keyword}` };
}
