import { CatalogError, type CatalogErrorOptions } from "./catalog-error.js";

/**
 * Options of a {@link ToolError}.
 *
 * @public
 */
export interface ToolErrorOptions extends CatalogErrorOptions {
  /** What the model should do next, e.g. `"call find_tool with select:git_log_search"`. */
  readonly hint?: string;
}

/**
 * An error meant for the model. A tool handler throws it to fail a call with a readable code,
 * message and hint; the run turns it into a `{ ok: false, error }` result, never an exception
 * that ends the run.
 * @public
 */
export class ToolError extends CatalogError {
  /** The kind the markers use for this class. */
  static override readonly errorKind: string = "ToolError";
  /** What the model should do next. */
  readonly hint: string | undefined;

  constructor(code: string, message: string, options: ToolErrorOptions = {}) {
    super(code, message, options);
    this.name = "ToolError";
    this.hint = options.hint;
  }
}
