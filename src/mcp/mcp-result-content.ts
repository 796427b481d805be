import type { ContentBlock } from "@modelcontextprotocol/sdk/types.js";
import {
  type FileContentPart,
  type ImageContentPart,
  type ToolContent,
  type ToolContentPart,
  toolContent,
} from "agent-tool-catalog";
import { cutToBytes, utf8Length } from "./cut-to-bytes.js";
import {
  base64Bytes,
  describeBlock,
  formatMcpResult,
  type McpResultSource,
  type McpToolResultContent,
} from "./format-mcp-result.js";

/**
 * Where a result came from, and how much binary content it may carry.
 *
 * @public
 */
export interface McpContentSource extends McpResultSource {
  /** Most decoded bytes of images, audio and blobs in one result; 0 keeps results text-only. */
  readonly maxBinaryBytes: number;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * A tool result as the model should get it: plain text (see `formatMcpResult`) when the result
 * has no binary content, or `toolContent` parts when it does: images as image parts, audio and
 * binary resources as file parts, in the server's order, with the text parts between them. The
 * `output` of a rich result is the text form, which names every binary part: providers that take
 * no images fall back to it. A binary block over `maxBinaryBytes` (what is left of it) stays a
 * text line saying what was left out.
 *
 * @throws ToolError `mcp_tool_error` when the result has `isError: true`.
 * @public
 */
export function mcpResultContent(result: McpToolResultContent, source: McpContentSource): string | ToolContent {
  const text = formatMcpResult(result, source);
  const blocks = result.content ?? [];
  if (source.maxBinaryBytes <= 0 || !blocks.some(isBinary)) return text;
  const hasStructured = result.structuredContent !== undefined && result.structuredContent !== null;
  const pieces: ToolContentPart[] = hasStructured ? [{ type: "text", text: JSON.stringify(result.structuredContent) }] : [];
  let budget = source.maxBinaryBytes;
  for (const block of blocks) {
    if (hasStructured && block.type === "text") continue;
    const part = isBinary(block) ? binaryPart(block) : undefined;
    if (part === undefined) {
      pieces.push({ type: "text", text: describeBlock(block) });
      continue;
    }
    const bytes = base64Bytes(part.data);
    if (bytes > budget) {
      pieces.push({
        type: "text",
        text: `${describeBlock(block)} (over the ${source.maxBinaryBytes}-byte limit for binary content)`,
      });
      continue;
    }
    budget -= bytes;
    pieces.push(part);
  }
  // Nothing usable (broken base64, all over the limit): the text says it all.
  if (!pieces.some((part) => part.type !== "text")) return text;
  return toolContent(capText(mergeText(pieces), source.maxOutputBytes), { output: text });
}

function isBinary(block: ContentBlock): boolean {
  if (block.type === "image" || block.type === "audio") return true;
  return block.type === "resource" && "blob" in block.resource && typeof block.resource.blob === "string";
}

function binaryPart(block: ContentBlock): ImageContentPart | FileContentPart | undefined {
  if (block.type === "image" || block.type === "audio") {
    if (!BASE64.test(block.data) || typeof block.mimeType !== "string") return undefined;
    return block.type === "image" && block.mimeType.startsWith("image/")
      ? { type: "image", data: block.data, mediaType: block.mimeType }
      : { type: "file", data: block.data, mediaType: block.mimeType };
  }
  if (block.type !== "resource" || !("blob" in block.resource) || typeof block.resource.blob !== "string") return undefined;
  const { blob, uri } = block.resource;
  const mediaType = block.resource.mimeType ?? "application/octet-stream";
  if (!BASE64.test(blob)) return undefined;
  if (mediaType.startsWith("image/")) return { type: "image", data: blob, mediaType };
  const filename = uri.split(/[/\\]/).pop();
  return { type: "file", data: blob, mediaType, ...(filename === undefined || filename === "" ? {} : { filename }) };
}

function mergeText(parts: readonly ToolContentPart[]): ToolContentPart[] {
  const out: ToolContentPart[] = [];
  for (const part of parts) {
    const last = out.at(-1);
    if (part.type === "text" && last?.type === "text") out[out.length - 1] = { type: "text", text: `${last.text}\n${part.text}` };
    else out.push(part);
  }
  return out;
}

// The text parts together stay within maxOutputBytes, each cut in proportion to its size.
function capText(parts: readonly ToolContentPart[], maxBytes: number): ToolContentPart[] {
  const total = parts.reduce((sum, part) => sum + (part.type === "text" ? utf8Length(part.text) : 0), 0);
  if (total <= maxBytes) return [...parts];
  return parts.map((part) =>
    part.type === "text"
      ? { type: "text", text: cutToBytes(part.text, Math.max(64, Math.floor((maxBytes * utf8Length(part.text)) / total))) }
      : part,
  );
}
