const MARKER = Symbol.for("agent-tool-catalog.error");

/** Options shared by every {@link CatalogError}. */
export interface CatalogErrorOptions {
  /** Structured details a caller can act on (field names, limits, candidates). */
  readonly data?: Readonly<Record<string, unknown>>;
  /** The underlying error, when this one wraps another. */
  readonly cause?: unknown;
}

/**
 * Base class of every error this library throws.
 *
 * Errors are thrown only for programmer or host mistakes (a bad tool definition, an invalid
 * configuration). Mistakes of the model never throw: they come back as a {@link ToolCallResult}
 * with `ok: false`.
 *
 * `code` is a stable string to branch on; `data` carries the details.
 */
export class CatalogError extends Error {
  /** Stable machine-readable error code, e.g. `"duplicate_tool_name"`. */
  readonly code: string;
  /** Structured details a caller can act on. */
  readonly data: Readonly<Record<string, unknown>>;
  constructor(code: string, message: string, options: CatalogErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "CatalogError";
    this.code = code;
    this.data = options.data ?? {};
    Object.defineProperty(this, MARKER, { value: true });
  }

  /**
   * True when `value` is a {@link CatalogError}, also when it comes from another bundled copy of
   * this library (where `instanceof` would say false).
   */
  static isInstance(value: unknown): value is CatalogError {
    return typeof value === "object" && value !== null && MARKER in value;
  }
}
