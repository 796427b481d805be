import type { JsonObjectSchema, JsonSchema } from "./json-schema.js";
import type { StandardSchemaV1 } from "./standard-schema.js";
import type { ToolContext } from "./tool-context.js";

/**
 * Tier of a core tool: sent to the model on every turn.
 *
 * @public
 */
export const TIER_CORE = "core";
/**
 * Tier of a deferred tool: hidden until the model activates it with `find_tool`.
 *
 * @public
 */
export const TIER_DEFERRED = "deferred";

/**
 * Where a tool is offered: on every turn (`core`) or after activation (`deferred`).
 *
 * @public
 */
export type ToolTier = typeof TIER_CORE | typeof TIER_DEFERRED;

/**
 * Hints about a tool's behaviour, with the names MCP uses. They inform listings and the
 * permission policy; they never grant anything on their own.
 * @public
 */
export interface ToolAnnotations {
  /** A human-readable title. Also searched by `find_tool`. */
  readonly title?: string;
  /** The tool does not change its environment. */
  readonly readOnlyHint?: boolean;
  /** The tool may destroy or overwrite data. */
  readonly destructiveHint?: boolean;
  /** Calling the tool twice with the same input has no further effect. */
  readonly idempotentHint?: boolean;
  /** The tool talks to the world outside the host (network, third parties). */
  readonly openWorldHint?: boolean;
}

/**
 * An input schema: any Standard Schema (zod 3.24+, zod 4, valibot, ...) or a JSON object schema.
 *
 * @public
 */
export type ToolInputSchema = StandardSchemaV1 | JsonObjectSchema;

/**
 * The fields every tool definition has, whatever its input schema.
 *
 * @public
 */
export interface ToolDefinitionFields {
  /** Unique name, `^[a-zA-Z0-9_-]{1,64}$` (what every provider accepts). */
  readonly name: string;
  /** What the tool does, for the model. The first line is used in listings. */
  readonly description: string;
  /**
   * Where the tool is offered.
   * @defaultValue `"core"`
   */
  readonly tier?: ToolTier;
  /**
   * True when a call can change files, processes or the world. Mutating tools need approval
   * under `approval: "destructive"`.
   * @defaultValue `false`
   */
  readonly mutating?: boolean;
  /** Behaviour hints (MCP names). */
  readonly annotations?: ToolAnnotations;
  /** Search keywords for `find_tool`, e.g. `["git", "history"]`. */
  readonly tags?: readonly string[];
  /** Schema of the handler's result, sent to providers that accept one. */
  readonly outputSchema?: StandardSchemaV1 | JsonSchema;
}

/**
 * A tool: data (name, description, schema, tier, annotations, tags) plus a handler.
 * Definitions are immutable once registered.
 *
 * @typeParam Input - what the handler receives, after validation
 * @typeParam Output - what the handler returns
 * @public
 */
export interface ToolDefinition<Input = unknown, Output = unknown> extends ToolDefinitionFields {
  /** The input schema. A zod schema types the handler's `input`. */
  readonly inputSchema: ToolInputSchema;
  /**
   * Runs the tool. Throw a `ToolError` to fail with a message for the model; any other
   * exception is reported to the model as `tool_failed`.
   */
  handler(input: Input, context: ToolContext): Output | Promise<Output>;
  /**
   * Cheap checks run after validation and before approval is asked (e.g. "is this path inside
   * the workspace"), so nobody is asked to approve a call that would be refused anyway. Throw a
   * `ToolError` to refuse the call; it must not change anything.
   */
  preflight?(input: Input, context: ToolContext): void | Promise<void>;
}

/**
 * A tool definition of any input and output type, as stored in collections.
 *
 * @public
 */
// biome-ignore lint/suspicious/noExplicitAny: handlers are contravariant in their input; collections must accept every tool.
export type AnyToolDefinition = ToolDefinition<any, unknown>;
