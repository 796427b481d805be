import { compileTool } from "./compile-tool.js";
import type { JsonObjectSchema } from "./json-schema.js";
import type { StandardSchemaV1 } from "./standard-schema.js";
import type { ToolContext } from "./tool-context.js";
import type { ToolDefinition, ToolDefinitionFields } from "./tool-definition.js";

/**
 * A definition whose input is a Standard Schema (zod 3.24+, zod 4, ...): the handler is typed from it.
 *
 * @public
 */
export interface SchemaToolDefinitionInput<Schema extends StandardSchemaV1, Output> extends ToolDefinitionFields {
  /** The input schema. */
  readonly inputSchema: Schema;
  /** Runs the tool with the validated input. */
  handler(input: StandardSchemaV1.InferOutput<Schema>, context: ToolContext): Output | Promise<Output>;
  /**
   * Cheap checks run after validation and before approval is asked (e.g. "is this path inside
   * the workspace"), so nobody is asked to approve a call that would be refused anyway. Throw a
   * `ToolError` to refuse the call; it must not change anything.
   */
  preflight?(input: StandardSchemaV1.InferOutput<Schema>, context: ToolContext): void | Promise<void>;
}

/**
 * A definition whose input is a plain JSON object schema; type the input with the `Input` parameter.
 *
 * @public
 */
export interface JsonSchemaToolDefinitionInput<Input, Output> extends ToolDefinitionFields {
  /** The input schema. */
  readonly inputSchema: JsonObjectSchema;
  /** Runs the tool with the validated input. */
  handler(input: Input, context: ToolContext): Output | Promise<Output>;
  /**
   * Cheap checks run after validation and before approval is asked (e.g. "is this path inside
   * the workspace"), so nobody is asked to approve a call that would be refused anyway. Throw a
   * `ToolError` to refuse the call; it must not change anything.
   */
  preflight?(input: Input, context: ToolContext): void | Promise<void>;
}

/**
 * Defines a tool. Checks the definition at once (name, description, schema) and throws a
 * `ToolDefinitionError` with a precise message when it is wrong; returns the definition frozen.
 *
 * @example
 * ```ts
 * const echo = defineTool({
 *   name: "echo",
 *   description: "Echo a message back.",
 *   inputSchema: z.object({ message: z.string() }),
 *   handler: ({ message }) => message,
 * });
 * ```
 * @public
 */
export function defineTool<Schema extends StandardSchemaV1, Output>(
  definition: SchemaToolDefinitionInput<Schema, Output>,
): ToolDefinition<StandardSchemaV1.InferOutput<Schema>, Output>;
/** @public */
export function defineTool<Input = Record<string, unknown>, Output = unknown>(
  definition: JsonSchemaToolDefinitionInput<Input, Output>,
): ToolDefinition<Input, Output>;
/** @public */
export function defineTool(definition: ToolDefinition): ToolDefinition {
  const frozen = Object.freeze({ ...definition });
  compileTool(frozen);
  return frozen;
}
