import { ToolDefinitionError } from "../errors/tool-definition-error.js";
import { frozenJsonCopy } from "./frozen-copy.js";
import { type CompiledSchema, compileSchema } from "./input-schema.js";
import type { JsonObjectSchema } from "./json-schema.js";
import { JsonSchemaCompiler } from "./json-schema-validator.js";
import { type AnyToolDefinition, TIER_CORE, TIER_DEFERRED } from "./tool-definition.js";
import type { ToolDescriptor } from "./tool-descriptor.js";
import { explainInvalidToolName } from "./tool-name.js";

/** A checked tool definition with its JSON Schema and validator, ready for a registry. */
export interface CompiledTool {
  /** The definition as given. */
  readonly definition: AnyToolDefinition;
  /** The provider-neutral descriptor. */
  readonly descriptor: ToolDescriptor;
  /** Validates input. */
  readonly validate: CompiledSchema["validate"];
  /** Validates a handler's output against `outputSchema`; absent when the tool has none. */
  readonly validateOutput: CompiledSchema["validate"] | undefined;
}

/**
 * Compiles outside any registry (`defineTool`'s checks, `applyPolicy`). Validators compile
 * lazily, on first call, so definitions only checked here never put a schema in its Ajv.
 */
const standaloneCompiler = new JsonSchemaCompiler();
/** Compiled tools per compiler (registry), then per definition object: both weakly held. */
const compiledBy = new WeakMap<JsonSchemaCompiler, WeakMap<object, CompiledTool>>();

/**
 * Checks a definition and compiles its schemas, once per definition object and compiler.
 * @param compiler - the registry's JSON Schema compiler (validators live as long as it does)
 * @throws ToolDefinitionError when the definition is wrong, saying which field and why.
 */
export function compileTool(definition: AnyToolDefinition, compiler: JsonSchemaCompiler = standaloneCompiler): CompiledTool {
  if (typeof definition !== "object" || definition === null) {
    throw new ToolDefinitionError("invalid_tool_handler", `A tool definition must be an object, got ${String(definition)}.`);
  }
  let compiled = compiledBy.get(compiler);
  if (compiled === undefined) {
    compiled = new WeakMap();
    compiledBy.set(compiler, compiled);
  }
  const cached = compiled.get(definition);
  if (cached !== undefined) return cached;
  // The checks and the JSON Schemas do not depend on the compiler: do them once per definition
  // (defineTool already did), and only bind fresh lazy validators to this compiler.
  let checked = checkedTools.get(definition);
  if (checked === undefined) {
    checked = compileUncached(definition, standaloneCompiler);
    checkedTools.set(definition, checked);
  }
  const result: CompiledTool =
    compiler === standaloneCompiler
      ? checked.tool
      : {
          ...checked.tool,
          validate: checked.input.bind?.(compiler, checked.input.jsonSchema) ?? checked.input.validate,
          validateOutput:
            checked.output === undefined
              ? undefined
              : (checked.output.bind?.(compiler, checked.output.jsonSchema) ?? checked.output.validate),
        };
  compiled.set(definition, result);
  return result;
}

/** A definition checked once, with its schemas, before binding validators to a compiler. */
interface CheckedTool {
  readonly tool: CompiledTool;
  readonly input: CompiledSchema;
  readonly output: CompiledSchema | undefined;
}

const checkedTools = new WeakMap<object, CheckedTool>();

function compileUncached(definition: AnyToolDefinition, compiler: JsonSchemaCompiler): CheckedTool {
  const { name } = definition;
  const badName = explainInvalidToolName(name);
  if (badName !== undefined) {
    throw new ToolDefinitionError("invalid_tool_name", `Invalid tool name ${JSON.stringify(name)}: ${badName}.`, {
      data: { name },
    });
  }
  if (typeof definition.description !== "string" || definition.description.trim() === "") {
    throw new ToolDefinitionError("invalid_tool_description", `Tool "${name}": description must be a non-empty string.`, {
      data: { name },
    });
  }
  if (typeof definition.handler !== "function") {
    throw new ToolDefinitionError("invalid_tool_handler", `Tool "${name}": handler must be a function.`, { data: { name } });
  }
  if (definition.preflight !== undefined && typeof definition.preflight !== "function") {
    throw new ToolDefinitionError("invalid_tool_handler", `Tool "${name}": preflight must be a function when given.`, {
      data: { name },
    });
  }
  const tier = definition.tier ?? TIER_CORE;
  if (tier !== TIER_CORE && tier !== TIER_DEFERRED) {
    throw new ToolDefinitionError(
      "invalid_tool_tier",
      `Tool "${name}": tier must be "core" or "deferred", got ${JSON.stringify(tier)}.`,
      {
        data: { name, tier },
      },
    );
  }
  checkFlagsAndTags(name, definition);
  const input = compileInput(name, definition.inputSchema, compiler);
  const output = compileOutput(name, definition.outputSchema, compiler);
  const descriptor: ToolDescriptor = Object.freeze({
    name,
    description: definition.description,
    inputSchema: input.jsonSchema as JsonObjectSchema,
    outputSchema: output?.jsonSchema,
    tier,
    mutating: definition.mutating === true,
    annotations: frozenJsonCopy({ ...definition.annotations }),
    tags: Object.freeze([...(definition.tags ?? [])]),
  });
  return { tool: { definition, descriptor, validate: input.validate, validateOutput: output?.validate }, input, output };
}

/**
 * `mutating` decides whether `approval: "destructive"` asks: anything but `true` read as "not
 * mutating", so `mutating: "yes"` (or 1, from a JavaScript host or a config file) ran a destructive
 * tool unasked. Tags are search words: a number or an empty string is a mistake, not a word.
 */
function checkFlagsAndTags(name: string, definition: AnyToolDefinition): void {
  const { mutating, tags } = definition as { mutating?: unknown; tags?: unknown };
  if (mutating !== undefined && typeof mutating !== "boolean") {
    throw new ToolDefinitionError(
      "invalid_tool_field",
      `Tool "${name}": mutating must be true or false, got ${describeValue(mutating)}.`,
      { data: { name, field: "mutating" } },
    );
  }
  if (tags === undefined) return;
  // Any iterable of words is read as a list (a Set of tags was spread into one before the check).
  const iterable = typeof tags === "object" && tags !== null && Symbol.iterator in tags;
  if (!iterable) {
    throw new ToolDefinitionError(
      "invalid_tool_field",
      `Tool "${name}": tags must be an array of words, got ${describeValue(tags)}.`,
      {
        data: { name, field: "tags" },
      },
    );
  }
  const words = Array.from(tags as Iterable<unknown>);
  const bad = words.findIndex((tag) => typeof tag !== "string" || tag.trim() === "");
  if (bad !== -1) {
    throw new ToolDefinitionError(
      "invalid_tool_field",
      `Tool "${name}": tags[${bad}] must be a non-empty string, got ${describeValue(words[bad])}.`,
      { data: { name, field: `tags[${bad}]` } },
    );
  }
}

function describeValue(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value);
  if (value === null || typeof value !== "object") return String(value);
  return Array.isArray(value) ? "an array" : "an object";
}

function compileInput(name: string, schema: unknown, compiler: JsonSchemaCompiler): CompiledSchema {
  if (schema === undefined) {
    throw new ToolDefinitionError(
      "invalid_input_schema",
      `Tool "${name}": inputSchema is required (use z.object({}) or { type: "object" } for no input).`,
      {
        data: { name },
      },
    );
  }
  const result = compileSchema(schema, compiler);
  if (!result.ok) {
    throw new ToolDefinitionError("invalid_input_schema", `Tool "${name}": inputSchema is invalid: ${result.reason}.`, {
      data: { name },
    });
  }
  const { type } = result.schema.jsonSchema;
  if (type !== "object") {
    throw new ToolDefinitionError(
      "invalid_input_schema",
      `Tool "${name}": inputSchema must describe an object (JSON Schema type "object"), got type ${JSON.stringify(type ?? null)}.`,
      { data: { name, type } },
    );
  }
  return result.schema;
}

function compileOutput(name: string, schema: unknown, compiler: JsonSchemaCompiler): CompiledSchema | undefined {
  if (schema === undefined) return undefined;
  const result = compileSchema(schema, compiler);
  if (!result.ok) {
    throw new ToolDefinitionError("invalid_output_schema", `Tool "${name}": outputSchema is invalid: ${result.reason}.`, {
      data: { name },
    });
  }
  return result.schema;
}
