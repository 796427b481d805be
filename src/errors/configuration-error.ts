import { CatalogError, type CatalogErrorOptions } from "./catalog-error.js";

/**
 * Thrown when the host passes an invalid option, e.g. a `PermissionConfig` with an unknown
 * sandbox value, or an `allowedTools` entry that is not a string.
 * @public
 */
export class ConfigurationError extends CatalogError {
  /** The kind the markers use for this class. */
  static override readonly errorKind: string = "ConfigurationError";
  constructor(code: string, message: string, options: CatalogErrorOptions = {}) {
    super(code, message, options);
    this.name = "ConfigurationError";
  }
}
