import type { ToolCallResult, ToolContentPart } from "agent-tool-catalog";
import { checkNumberOption } from "../../errors/check-number-option.js";

/**
 * How an adapter sends the images and files of rich results (`toolContent`).
 *
 * @public
 */
export interface ToolResultMediaOptions {
  /**
   * Send images and files in the provider's own shape. `false` for a model that takes no images:
   * each binary part then becomes a text line saying what was left out, so the model knows it exists.
   * @defaultValue `true`
   */
  readonly media?: boolean;
  /**
   * The most decoded bytes of images and files one result sends; a part that does not fit becomes a
   * text line. The run caps results too (`maxBinaryBytes`). The Anthropic adapter also holds each
   * image to the API's own cap, 5 MB of base64 (about 3.75 MiB decoded). A whole number at least 0
   * (0 sends no media, only the lines saying what was left out), or `Infinity` (only the
   * provider's cap); anything else fails with `invalid_option` where the option is given.
   * @defaultValue 5 MiB
   */
  readonly maxMediaBytes?: number;
}

/**
 * The default of {@link ToolResultMediaOptions.maxMediaBytes}.
 *
 * @public
 */
export const DEFAULT_MAX_MEDIA_BYTES = 5 * 1024 * 1024;

/**
 * One part of a result as an adapter sends it: text, or a binary part the provider accepts.
 *
 * @public
 */
export type SendablePart =
  | { readonly type: "text"; readonly text: string }
  | { readonly type: "image"; readonly data: string; readonly mediaType: string }
  | { readonly type: "file"; readonly data: string; readonly mediaType: string; readonly filename?: string };

/** Which media types a provider accepts in a tool result. */
export interface ProviderMedia {
  /** The provider's name, for the text line of a part it refuses. */
  readonly provider: string;
  /** True for image types it takes. */
  image(mediaType: string): boolean;
  /** True for file types it takes. */
  file(mediaType: string): boolean;
  /**
   * The longest base64 string it takes for one image, when it has such a cap (Anthropic: 5 MB
   * of base64, whatever the decoded size).
   */
  readonly maxImageBase64Length?: number;
}

/**
 * Checks the media options where an adapter is given them: a `NaN` `maxMediaBytes` compared
 * false with every size, so every image and file was sent whatever its size.
 * @throws ConfigurationError `invalid_option` naming `maxMediaBytes`.
 */
export function checkMediaOptions(options: ToolResultMediaOptions, where: string): void {
  readMediaOptions(options, where);
}

/**
 * The media options read once and checked ({@link checkMediaOptions}): the value checked is the
 * value used. Read again for each result, a getter answering `0` to the check and `NaN` after it
 * sent every image whatever its size, and one that threw lost a batch whose first call had run.
 * @throws ConfigurationError `invalid_option` naming `maxMediaBytes`.
 */
export function readMediaOptions(options: ToolResultMediaOptions, where: string): ToolResultMediaOptions {
  const { media, maxMediaBytes } = options;
  checkNumberOption(maxMediaBytes, "maxMediaBytes", { min: 0, integer: true, infinite: true }, where);
  return Object.freeze({
    ...(media === undefined ? {} : { media }),
    ...(maxMediaBytes === undefined ? {} : { maxMediaBytes }),
  });
}

/**
 * The parts of a successful rich result as a provider takes them: text parts, and the images and
 * files it accepts. Those it refuses, those over `maxMediaBytes`, and all of them when `media` is
 * false become text lines saying what was left out. `undefined` for a result without parts (a
 * failure, a plain output): send it as text.
 */
export function sendableParts(
  result: ToolCallResult,
  options: ToolResultMediaOptions,
  provider: ProviderMedia,
): SendablePart[] | undefined {
  if (!result.ok || !Array.isArray(result.content) || result.content.length === 0) return undefined;
  const limit = options.maxMediaBytes ?? DEFAULT_MAX_MEDIA_BYTES;
  const budget = { left: limit };
  const parts: SendablePart[] = [];
  for (const part of result.content as readonly ToolContentPart[]) {
    const sendable = sendablePart(part, options, provider, budget, limit);
    if (sendable !== undefined) parts.push(sendable);
  }
  return parts;
}

function sendablePart(
  part: ToolContentPart,
  options: ToolResultMediaOptions,
  provider: ProviderMedia,
  budget: { left: number },
  limit: number,
): SendablePart | undefined {
  if (part === null || typeof part !== "object") return undefined;
  if (part.type === "text")
    return typeof part.text === "string" && part.text !== "" ? { type: "text", text: part.text } : undefined;
  if ((part.type !== "image" && part.type !== "file") || typeof part.data !== "string" || typeof part.mediaType !== "string")
    return undefined;
  const bytes = decodedBytes(part.data);
  const refusal = refusalOf(part, bytes, options, provider, budget.left, limit);
  if (refusal === undefined) {
    budget.left -= bytes;
    if (part.type === "image") return { type: "image", data: part.data, mediaType: part.mediaType };
    const filename = typeof part.filename === "string" ? { filename: part.filename } : {};
    return { type: "file", data: part.data, mediaType: part.mediaType, ...filename };
  }
  const name = part.type === "file" && typeof part.filename === "string" ? part.filename : undefined;
  // A text file the provider takes no file of still reaches the model, as text.
  if (part.type === "file" && part.mediaType.startsWith("text/") && bytes <= budget.left) {
    budget.left -= bytes;
    return { type: "text", text: `${name ?? part.mediaType}:\n${decodeBase64Text(part.data)}` };
  }
  return {
    type: "text",
    text: `[${part.type} omitted: ${part.mediaType}, ${describeBytes(bytes)}${name === undefined ? "" : `, ${name}`}; ${refusal}]`,
  };
}

/** Why a binary part is not sent as it is, or `undefined` when it is. */
function refusalOf(
  part: { readonly type: "image" | "file"; readonly mediaType: string; readonly data: string },
  bytes: number,
  options: ToolResultMediaOptions,
  provider: ProviderMedia,
  budget: number,
  limit: number,
): string | undefined {
  if (options.media === false) return "this model takes no images or files";
  const accepted = part.type === "image" ? provider.image(part.mediaType) : provider.file(part.mediaType);
  if (!accepted) return `${provider.provider} takes no ${part.mediaType} in tool results`;
  const cap = part.type === "image" ? provider.maxImageBase64Length : undefined;
  if (cap !== undefined && part.data.length > cap) {
    return `over the ${cap.toLocaleString("en-US")} characters of base64 ${provider.provider} takes per image`;
  }
  return bytes > budget ? `over the ${describeBytes(limit)} a result may send` : undefined;
}

/** True when `parts` hold an image or a file (else the result can go as plain text). */
export function hasMedia(parts: readonly SendablePart[]): boolean {
  return parts.some((part) => part.type !== "text");
}

/** The text parts of `parts`, one blank line apart (for a result whose parts all ended up as text). */
export function joinText(parts: readonly SendablePart[]): string {
  return parts.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("\n\n");
}

/** A `data:` URL of base64 bytes. */
export function dataUrl(mediaType: string, data: string): string {
  return `data:${mediaType};base64,${data}`;
}

/** The UTF-8 text of base64 bytes. */
export function decodeBase64Text(data: string): string {
  const binary = atob(data);
  const bytes = new Uint8Array(binary.length);
  for (let index = 0; index < binary.length; index++) bytes[index] = binary.charCodeAt(index);
  return new TextDecoder().decode(bytes);
}

/** The size of a base64 string's bytes. */
function decodedBytes(base64: string): number {
  const padding = base64.endsWith("==") ? 2 : base64.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor((base64.length * 3) / 4) - padding);
}

function describeBytes(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / (1024 * 1024)).toFixed(1)} MiB` : `${Math.ceil(bytes / 1024)} KiB`;
}
