import type { ToolCallResult } from "agent-tool-catalog";
import { resultText } from "../shared/result-text.js";
import {
  decodeBase64Text,
  hasMedia,
  joinText,
  type ProviderMedia,
  type SendablePart,
  sendableParts,
  type ToolResultMediaOptions,
} from "../shared/tool-result-media.js";
import type { AnthropicToolResultBlock, AnthropicToolResultContentBlock } from "./anthropic-types.js";

const IMAGE_TYPES = new Set(["image/jpeg", "image/png", "image/gif", "image/webp"]);
const ANTHROPIC_MEDIA: ProviderMedia = {
  provider: "Anthropic",
  image: (mediaType) => IMAGE_TYPES.has(mediaType),
  file: (mediaType) => mediaType === "application/pdf" || mediaType === "text/plain",
  // The API refuses a request with an image over 5 MB of base64 ("image exceeds 5 MB maximum"), and
  // the result stays in the conversation, so every later request would be refused too.
  maxImageBase64Length: 5 * 1024 * 1024,
};

/**
 * The `tool_result` block of one call: the text of the result, or, for a rich result
 * (`toolContent`), its parts as text, `image` and `document` blocks (PDFs, plain text). Images and
 * files the API refuses, or over the size cap, become text lines. A failure has `is_error: true`.
 * @public
 */
export function anthropicToolResult(
  toolUseId: string,
  result: ToolCallResult,
  options: ToolResultMediaOptions = {},
): AnthropicToolResultBlock {
  const parts = sendableParts(result, options, ANTHROPIC_MEDIA);
  let content: string | AnthropicToolResultContentBlock[];
  if (parts !== undefined && hasMedia(parts)) {
    content = parts.filter(notBlank).map((part): AnthropicToolResultContentBlock => {
      if (part.type === "text") return { type: "text", text: part.text };
      if (part.type === "image") {
        return {
          type: "image",
          source: { type: "base64", media_type: part.mediaType as AnthropicImageMediaType, data: part.data },
        };
      }
      const title = part.filename === undefined ? {} : { title: part.filename };
      return part.mediaType === "text/plain"
        ? { type: "document", source: { type: "text", media_type: "text/plain", data: decodeBase64Text(part.data) }, ...title }
        : { type: "document", source: { type: "base64", media_type: "application/pdf", data: part.data }, ...title };
    });
  } else {
    content = parts === undefined ? resultText(result) : joinText(parts);
  }
  // A handler that returned nothing (or only whitespace) gets a result without content: the API
  // refuses text that is empty or only whitespace, for this request and every later one of the
  // conversation.
  const block: AnthropicToolResultBlock =
    typeof content === "string" && content.trim() === ""
      ? { type: "tool_result", tool_use_id: toolUseId }
      : { type: "tool_result", tool_use_id: toolUseId, content };
  return result.ok ? block : { ...block, is_error: true };
}

/** False for a text part that is only whitespace, which the API refuses as a text block. */
function notBlank(part: SendablePart): boolean {
  return part.type !== "text" || part.text.trim() !== "";
}

type AnthropicImageMediaType = "image/jpeg" | "image/png" | "image/gif" | "image/webp";
