import type { JsonObjectSchema, JsonSchema } from "./json-schema.js";
import type { ToolAnnotations, ToolTier } from "./tool-definition.js";

/**
 * A tool as sent to a model: provider-neutral data, JSON Schema input. Adapters turn it into a
 * provider's tool format.
 * @public
 */
export interface ToolDescriptor {
  /** The tool's name. */
  readonly name: string;
  /** The tool's description. */
  readonly description: string;
  /** The input as a JSON object schema. */
  readonly inputSchema: JsonObjectSchema;
  /** The output as JSON Schema, when the tool declares one. */
  readonly outputSchema: JsonSchema | undefined;
  /** The tool's tier. */
  readonly tier: ToolTier;
  /** True when a call can change its environment. */
  readonly mutating: boolean;
  /** Behaviour hints. */
  readonly annotations: ToolAnnotations;
  /** Search keywords. */
  readonly tags: readonly string[];
}
