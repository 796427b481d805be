import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import type { JsonSchema } from "./json-schema.js";
import type { ValidationIssue, ValidationOutcome } from "./validation-issue.js";

const DRAFT_2020 = "https://json-schema.org/draft/2020-12/schema";

let draft7: Ajv | undefined;
let draft2020: Ajv2020 | undefined;

function ajvFor(schema: JsonSchema): Ajv | Ajv2020 {
  // One shared instance per draft: compiling the meta-schema is the expensive part.
  if (typeof schema.$schema === "string" && schema.$schema.startsWith(DRAFT_2020)) {
    draft2020 ??= new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
    return draft2020;
  }
  draft7 ??= new Ajv({ strict: false, allErrors: true, validateFormats: false });
  return draft7;
}

/** Why `schema` is not a valid JSON Schema, or `undefined` when it is. */
export function explainInvalidJsonSchema(schema: JsonSchema): string | undefined {
  const ajv = ajvFor(schema);
  if (ajv.validateSchema(schema) === true) return undefined;
  return ajv.errorsText(ajv.errors, { dataVar: "schema" });
}

/**
 * A validator for a plain JSON Schema, compiled on first use (registering thousands of MCP tools
 * must not compile thousands of schemas that are never called).
 */
export function createJsonSchemaValidator(schema: JsonSchema): (value: unknown) => ValidationOutcome {
  let compiled: ValidateFunction | undefined;
  return (value) => {
    compiled ??= ajvFor(schema).compile(schema);
    if (compiled(value)) return { ok: true, value };
    return { ok: false, issues: (compiled.errors ?? []).map(toIssue) };
  };
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
