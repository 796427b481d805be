/** The prefix of the per-class markers (shared through `Symbol.for` by every copy of the library). */
const MARKER_PREFIX = "agent-tool-catalog.error";

/**
 * Options shared by every {@link CatalogError}.
 *
 * @public
 */
export interface CatalogErrorOptions {
  /** Structured details a caller can act on (field names, limits, candidates). */
  readonly data?: Readonly<Record<string, unknown>>;
  /** The underlying error, when this one wraps another. */
  readonly cause?: unknown;
}

/**
 * The marker of one error class. A class may pin its kind with a static `errorKind` (so a
 * minifier renaming it does not matter); otherwise its name is used.
 */
function markerOf(errorClass: object): symbol {
  const kind = Object.hasOwn(errorClass, "errorKind")
    ? String((errorClass as { errorKind: unknown }).errorKind)
    : (errorClass as { name: string }).name;
  return Symbol.for(`${MARKER_PREFIX}.${kind}`);
}

/**
 * Base class of every error this library throws.
 *
 * Errors are thrown only for programmer or host mistakes (a bad tool definition, an invalid
 * configuration). Mistakes of the model never throw: they come back as a {@link ToolCallResult}
 * with `ok: false`.
 *
 * `code` is a stable string to branch on; `data` carries the details.
 * @public
 */
export class CatalogError extends Error {
  /** The kind the markers use for this class. */
  static readonly errorKind: string = "CatalogError";
  /** Stable machine-readable error code, e.g. `"duplicate_tool_name"`. */
  readonly code: string;
  /** Structured details a caller can act on. */
  readonly data: Readonly<Record<string, unknown>>;
  constructor(code: string, message: string, options: CatalogErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "CatalogError";
    this.code = code;
    this.data = options.data ?? {};
    // One marker per class of the chain, so `ToolError.isInstance` is true for a ToolError and
    // its subclasses only, also across bundled copies where `instanceof` fails.
    for (let current: object | null = new.target; current !== null && current !== Error; ) {
      Object.defineProperty(this, markerOf(current), { value: true });
      if (current === CatalogError) break;
      current = Object.getPrototypeOf(current) as object | null;
    }
  }

  /**
   * True when `value` is an instance of the class this is called on (`CatalogError.isInstance`,
   * `ToolError.isInstance`, ...) or of one of its subclasses, also when it comes from another
   * bundled copy of this library (where `instanceof` would say false).
   */
  static isInstance<T extends abstract new (...args: never[]) => CatalogError>(
    this: T,
    value: unknown,
  ): value is InstanceType<T> {
    if ((typeof value !== "object" && typeof value !== "function") || value === null) return false;
    try {
      // biome-ignore lint/complexity/noThisInStatic: `this` is the class it is called on (ToolError.isInstance checks ToolError).
      return markerOf(this) in value;
    } catch {
      // A revoked proxy or another hostile value is not one of ours.
      return false;
    }
  }
}
