import type { ToolCallResult } from "agent-tool-catalog";
import { jsonData } from "../shared/result-text.js";
import {
  hasMedia,
  joinText,
  type ProviderMedia,
  type SendablePart,
  sendableParts,
  type ToolResultMediaOptions,
} from "../shared/tool-result-media.js";

/**
 * What `execute` returns for a rich result (`toolContent`): its parts (size-capped) and its data.
 * `toModelOutput` sends the parts in the AI SDK's `content` shape; `result.steps` and saved
 * messages keep this object, so the images survive a round trip through `convertToModelMessages`.
 * @public
 */
export interface AiSdkContentOutput {
  /** Discriminant. */
  readonly type: "tool-content";
  /** The parts the model gets: text, and the images and files the provider is sent. */
  readonly parts: readonly SendablePart[];
  /** The result as data (`ToolCallSuccess.output`). */
  readonly output: unknown;
}

/**
 * The AI SDK's `ToolResultOutput`, as far as this adapter produces it.
 *
 * @public
 */
export type AiSdkModelOutput =
  | { readonly type: "text"; readonly value: string }
  | { readonly type: "json"; readonly value: unknown }
  | { readonly type: "error-json"; readonly value: unknown }
  | {
      readonly type: "content";
      readonly value: (
        | { readonly type: "text"; readonly text: string }
        | { readonly type: "image-data"; readonly data: string; readonly mediaType: string }
        | { readonly type: "file-data"; readonly data: string; readonly mediaType: string; readonly filename?: string }
      )[];
    };

// The AI SDK hands every part to the provider, which knows its own limits: take all media types here.
const AI_SDK_MEDIA: ProviderMedia = { provider: "The provider", image: () => true, file: () => true };

/** What `execute` returns for a run's result. */
export function executeOutput(result: ToolCallResult, options: ToolResultMediaOptions): unknown {
  if (!result.ok) return { error: result.error };
  const parts = sendableParts(result, options, AI_SDK_MEDIA);
  if (parts === undefined) return result.output;
  return hasMedia(parts)
    ? ({ type: "tool-content", parts, output: result.output } satisfies AiSdkContentOutput)
    : joinText(parts);
}

/**
 * True for what the tools' `execute` returns for a rich result.
 *
 * @public
 */
export function isContentOutput(value: unknown): value is AiSdkContentOutput {
  return (
    typeof value === "object" &&
    value !== null &&
    (value as { type?: unknown }).type === "tool-content" &&
    Array.isArray((value as { parts?: unknown }).parts)
  );
}

/**
 * `toModelOutput` of every tool: a string as text, a failure (`{ error }`) as `error-json`, a rich
 * result as `content` with `image-data` and `file-data` parts, anything else as JSON made safe
 * (BigInts as strings, cycles cut), so a hostile output never breaks the request.
 */
export function toModelOutput(output: unknown, failed: boolean): AiSdkModelOutput {
  if (typeof output === "string") return { type: "text", value: output };
  if (isContentOutput(output)) {
    return {
      type: "content",
      value: output.parts.map((part) =>
        part.type === "text"
          ? { type: "text", text: part.text }
          : part.type === "image"
            ? { type: "image-data", data: part.data, mediaType: part.mediaType }
            : {
                type: "file-data",
                data: part.data,
                mediaType: part.mediaType,
                ...(part.filename === undefined ? {} : { filename: part.filename }),
              },
      ),
    };
  }
  return { type: failed ? "error-json" : "json", value: jsonData(output) };
}
