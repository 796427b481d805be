import type { ToolCallResult } from "agent-tool-catalog";
import { resultText } from "../shared/result-text.js";
import {
  dataUrl,
  hasMedia,
  joinText,
  type ProviderMedia,
  type SendablePart,
  sendableParts,
  type ToolResultMediaOptions,
} from "../shared/tool-result-media.js";
import type { OpenAIChatUserContentPart, OpenAIFunctionCallOutputContent } from "./openai-types.js";

const IMAGE_TYPES = new Set(["image/png", "image/jpeg", "image/webp", "image/gif"]);

/** What OpenAI takes in tool results: PNG, JPEG, WebP and GIF images, and PDF files. */
export const OPENAI_MEDIA: ProviderMedia = {
  provider: "OpenAI",
  image: (mediaType) => IMAGE_TYPES.has(mediaType),
  file: (mediaType) => mediaType === "application/pdf",
};

/**
 * The `output` of a Responses `function_call_output`: the result's text, or, for a rich result with
 * images or files, its parts as `input_text`, `input_image` and `input_file` content.
 */
export function responsesOutput(
  result: ToolCallResult,
  options: ToolResultMediaOptions,
): string | OpenAIFunctionCallOutputContent[] {
  const parts = sendableParts(result, options, OPENAI_MEDIA);
  if (parts === undefined) return resultText(result);
  if (!hasMedia(parts)) return joinText(parts);
  return parts.map((part): OpenAIFunctionCallOutputContent => {
    if (part.type === "text") return { type: "input_text", text: part.text };
    if (part.type === "image") return { type: "input_image", image_url: dataUrl(part.mediaType, part.data), detail: "auto" };
    return { type: "input_file", file_data: dataUrl(part.mediaType, part.data), filename: fileName(part) };
  });
}

/**
 * A Chat Completions answer: the `tool` message's text (tool messages take text only), and the
 * images and files to send in a `user` message after the tool messages, if any.
 */
export function chatOutput(
  result: ToolCallResult,
  options: ToolResultMediaOptions,
): { readonly text: string; readonly media: OpenAIChatUserContentPart[] } {
  const parts = sendableParts(result, options, OPENAI_MEDIA);
  if (parts === undefined) return { text: resultText(result), media: [] };
  if (!hasMedia(parts)) return { text: joinText(parts), media: [] };
  const media: OpenAIChatUserContentPart[] = [];
  const lines: string[] = [];
  for (const part of parts) {
    if (part.type === "text") {
      lines.push(part.text);
      continue;
    }
    media.push(
      part.type === "image"
        ? { type: "image_url", image_url: { url: dataUrl(part.mediaType, part.data) } }
        : { type: "file", file: { file_data: dataUrl(part.mediaType, part.data), filename: fileName(part) } },
    );
    lines.push(`[${part.type} ${media.length}: ${part.mediaType}; in the next user message]`);
  }
  return { text: lines.join("\n\n"), media };
}

function fileName(part: Extract<SendablePart, { type: "file" }>): string {
  return part.filename ?? (part.mediaType === "application/pdf" ? "document.pdf" : "file");
}
