import type { Run, ToolDescriptor } from "agent-tool-catalog";
import { OPENAI_ROOT_REFUSED, withoutRefusedRootKeywords } from "../shared/root-keywords.js";
import type { OpenAIParametersSchema } from "./openai-types.js";
import { toStrictJsonSchema } from "./strict-json-schema.js";
import { stripOptionalNulls } from "./strip-optional-nulls.js";

/** The fields a function tool has in both OpenAI APIs. */
export interface FunctionToolParts {
  readonly name: string;
  readonly description: string;
  readonly parameters: OpenAIParametersSchema;
  readonly strict: boolean;
}

// Descriptors are immutable, so each one's strict form is computed once (and keeps its identity).
const strictForms = new WeakMap<ToolDescriptor, OpenAIParametersSchema | null>();

/** A descriptor as an OpenAI function: its strict form when asked and possible, else its own schema with `strict: false`. */
export function functionToolParts(descriptor: ToolDescriptor, strict: boolean): FunctionToolParts {
  const base = { name: descriptor.name, description: descriptor.description };
  if (strict) {
    let parameters = strictForms.get(descriptor);
    if (parameters === undefined) {
      parameters = toStrictJsonSchema(descriptor.inputSchema) ?? null;
      strictForms.set(descriptor, parameters);
    }
    if (parameters !== null) return { ...base, parameters, strict: true };
  }
  // Sent as the tool's own schema, less what OpenAI refuses at its top (moved to the description).
  const { description, schema } = withoutRefusedRootKeywords(descriptor, OPENAI_ROOT_REFUSED);
  return { name: descriptor.name, description, parameters: schema satisfies OpenAIParametersSchema, strict: false };
}

/**
 * The arguments to hand to `run.call()` for a function call: the JSON string as it came (the run
 * parses it and reports malformed JSON as `invalid_input`), or, when it holds `null`s for optional
 * fields (strict mode sends those), the parsed object without them.
 */
export function callArguments(run: Run, name: string, json: string): unknown {
  // Text over the run's limit goes as it is, refused unparsed: parsing it first cost seconds (10 MB
  // of nested arrays: 8.4 s) for a call that could only fail.
  if (json.length > run.maxInputLength || !json.includes("null")) return json;
  const descriptor = run.catalog.describe(name);
  if (descriptor === undefined) return json;
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    return json;
  }
  const stripped = stripOptionalNulls(descriptor.inputSchema, parsed);
  return stripped === parsed ? json : stripped;
}

/**
 * {@link callArguments} for whatever a provider item holds: arguments that are not a string (or a
 * name that is not) go to `run.call()` as they are, which reports them; nothing here throws.
 */
export function safeArguments(run: Run, name: unknown, json: unknown): unknown {
  if (typeof name !== "string" || typeof json !== "string") return json;
  try {
    return callArguments(run, name, json);
  } catch {
    return json;
  }
}
