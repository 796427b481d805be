import type { JsonSchema } from "./json-schema.js";
import { type UntrustedJsonSchemaOptions, untrustedJsonSchema, untrustedMarkOf } from "./untrusted-json-schema.js";
import { createUntrustedJsonSchemaValidator } from "./untrusted-json-schema-validator.js";
import type { ValidationIssue } from "./validation-issue.js";

/**
 * A checker of values against a JSON Schema the host does not control (an MCP tool's
 * `outputSchema`, say), run where `untrustedJsonSchema` input schemas are: compiled, then
 * checked, in the schema check thread with `timeoutMs` per stage, never on the host's thread.
 *
 * The returned function resolves to the value's issues (an empty array when it conforms). It
 * rejects with a `ToolError` `input_schema_too_slow` when a stage runs past `timeoutMs` (of the
 * thread's CPU time where measurable, else wall time; ten times it in wall time in any case) or past
 * the thread's heap limit, and with an `Error` when the schema cannot be compiled at all; a
 * schema whose compile failed fails every later check at once.
 *
 * @example
 * ```ts
 * const check = untrustedJsonChecker({ type: "object", required: ["t"] });
 * await check({ t: 1 }); // []
 * await check({});       // [{ path: "", message: "must have required property 't'" }]
 * ```
 * @throws ConfigurationError (`invalid_tool_config`) when `timeoutMs` is not a positive number.
 * @public
 */
export function untrustedJsonChecker(
  schema: JsonSchema,
  options: UntrustedJsonSchemaOptions = {},
): (value: unknown) => Promise<readonly ValidationIssue[]> {
  // untrustedJsonSchema checks the options as it does for input schemas, and gives the mark's limit.
  const timeoutMs = untrustedMarkOf(untrustedJsonSchema(schema, options))?.timeoutMs;
  const validate = createUntrustedJsonSchemaValidator(schema, timeoutMs as number);
  return async (value) => {
    const outcome = await validate(value);
    return outcome.ok ? [] : outcome.issues;
  };
}
