import { ToolDefinitionError } from "../errors/tool-definition-error.js";
import { type CompiledSchema, compileSchema } from "./input-schema.js";
import type { JsonObjectSchema, JsonSchema } from "./json-schema.js";
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
}

const compiled = new WeakMap<object, CompiledTool>();

/**
 * Checks a definition and compiles its schemas, once per definition object.
 * @throws ToolDefinitionError when the definition is wrong, saying which field and why.
 */
export function compileTool(definition: AnyToolDefinition): CompiledTool {
  if (typeof definition !== "object" || definition === null) {
    throw new ToolDefinitionError("invalid_tool_handler", `A tool definition must be an object, got ${String(definition)}.`);
  }
  const cached = compiled.get(definition);
  if (cached !== undefined) return cached;
  const result = compileUncached(definition);
  compiled.set(definition, result);
  return result;
}

function compileUncached(definition: AnyToolDefinition): CompiledTool {
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
  const input = compileInput(name, definition.inputSchema);
  const outputSchema = compileOutput(name, definition.outputSchema);
  const descriptor: ToolDescriptor = Object.freeze({
    name,
    description: definition.description,
    inputSchema: input.jsonSchema as JsonObjectSchema,
    outputSchema,
    tier,
    mutating: definition.mutating === true,
    annotations: Object.freeze({ ...definition.annotations }),
    tags: Object.freeze([...(definition.tags ?? [])]),
  });
  return { definition, descriptor, validate: input.validate };
}

function compileInput(name: string, schema: unknown): CompiledSchema {
  if (schema === undefined) {
    throw new ToolDefinitionError(
      "invalid_input_schema",
      `Tool "${name}": inputSchema is required (use z.object({}) or { type: "object" } for no input).`,
      {
        data: { name },
      },
    );
  }
  const result = compileSchema(schema);
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

function compileOutput(name: string, schema: unknown): JsonSchema | undefined {
  if (schema === undefined) return undefined;
  const result = compileSchema(schema);
  if (!result.ok) {
    throw new ToolDefinitionError("invalid_output_schema", `Tool "${name}": outputSchema is invalid: ${result.reason}.`, {
      data: { name },
    });
  }
  return result.schema.jsonSchema;
}
