import { CatalogError, type CatalogErrorOptions } from "./catalog-error.js";

/**
 * Codes of {@link ToolDefinitionError}.
 *
 * @public
 */
export type ToolDefinitionErrorCode =
  | "invalid_tool_name"
  | "duplicate_tool_name"
  | "invalid_tool_description"
  | "invalid_input_schema"
  | "invalid_output_schema"
  | "invalid_tool_tier"
  | "invalid_tool_handler"
  | "invalid_tool_field"
  | "invalid_tool_group";

/**
 * Thrown when a tool definition or group cannot be registered: a bad name, a duplicate name,
 * an input schema that is not an object schema, a missing handler, a `mutating` that is not a
 * boolean or `tags` that are not names (`invalid_tool_field`, with the field in `data.field`).
 * @public
 */
export class ToolDefinitionError extends CatalogError {
  /** The kind the markers use for this class. */
  static override readonly errorKind: string = "ToolDefinitionError";
  declare readonly code: ToolDefinitionErrorCode;

  constructor(code: ToolDefinitionErrorCode, message: string, options: CatalogErrorOptions = {}) {
    super(code, message, options);
    this.name = "ToolDefinitionError";
  }
}
