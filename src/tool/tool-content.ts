/**
 * Rich tool results: a handler may return {@link toolContent} parts (text, images, files) instead
 * of plain data. The run caps their size; adapters map them to each provider's shape, and fall
 * back to text where a provider takes no images.
 */

/**
 * A text part.
 *
 * @public
 */
export interface TextContentPart {
  readonly type: "text";
  readonly text: string;
}

/**
 * An image, base64-encoded (`image/png`, `image/jpeg`, `image/gif`, `image/webp`).
 *
 * @public
 */
export interface ImageContentPart {
  readonly type: "image";
  /** The bytes, base64 (no `data:` prefix). */
  readonly data: string;
  /** The IANA media type, e.g. `image/png`. */
  readonly mediaType: string;
}

/**
 * Any other binary or document (a PDF, an audio clip), base64-encoded.
 *
 * @public
 */
export interface FileContentPart {
  readonly type: "file";
  /** The bytes, base64 (no `data:` prefix). */
  readonly data: string;
  /** The IANA media type, e.g. `application/pdf`. */
  readonly mediaType: string;
  /** A file name to show, when there is one. */
  readonly filename?: string;
}

/**
 * One part of a rich tool result.
 *
 * @public
 */
export type ToolContentPart = TextContentPart | ImageContentPart | FileContentPart;

const TOOL_CONTENT_BRAND = Symbol.for("agent-tool-catalog.tool-content");

/**
 * What {@link toolContent} returns; recognised with {@link isToolContent}.
 *
 * @public
 */
export interface ToolContent {
  /** The parts, in order. */
  readonly parts: readonly ToolContentPart[];
  /**
   * The result as data, for hosts and for `formatToolResult`.
   * @defaultValue the text parts joined by blank lines
   */
  readonly output?: unknown;
}

/**
 * Builds a rich result for a handler to return: `ok` results then carry `content` (the parts,
 * size-capped by the run) besides `output`.
 *
 * @example
 * ```ts
 * const screenshot = defineTool({
 *   name: "screenshot",
 *   description: "Takes a screenshot of a page.",
 *   inputSchema: z.object({ url: z.string() }),
 *   handler: async ({ url }) =>
 *     toolContent([{ type: "text", text: `${url}:` }, { type: "image", data: base64, mediaType: "image/png" }]),
 * });
 * ```
 * @public
 */
export function toolContent(parts: readonly ToolContentPart[], options: { readonly output?: unknown } = {}): ToolContent {
  const value: ToolContent =
    options.output === undefined
      ? { parts: Object.freeze([...parts]) }
      : { parts: Object.freeze([...parts]), output: options.output };
  Object.defineProperty(value, TOOL_CONTENT_BRAND, { value: true });
  return Object.freeze(value);
}

/**
 * True for a value made by {@link toolContent} (in any copy of this package).
 *
 * @public
 */
export function isToolContent(value: unknown): value is ToolContent {
  return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[TOOL_CONTENT_BRAND] === true;
}
