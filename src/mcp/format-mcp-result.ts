import type { ContentBlock } from "@modelcontextprotocol/sdk/types.js";
import { ToolError } from "agent-tool-catalog";
import { countOf } from "../errors/count-of.js";
import { cutToBytes, utf8Length } from "./cut-to-bytes.js";
import { clip } from "./mcp-errors.js";

/**
 * Where a result came from, for messages.
 *
 * @public
 */
export interface McpResultSource {
  /** The server's name. */
  readonly server: string;
  /** The tool's name on the server. */
  readonly tool: string;
  /** The output limit, UTF-8 bytes. */
  readonly maxOutputBytes: number;
}

/**
 * The parts of an MCP `CallToolResult` the formatting reads.
 *
 * @public
 */
export interface McpToolResultContent {
  /** The content blocks. */
  readonly content?: readonly ContentBlock[] | undefined;
  /** The structured result, when the tool has an output schema. */
  readonly structuredContent?: unknown;
  /** True when the tool failed. */
  readonly isError?: boolean | undefined;
}

const MAX_ERROR_BYTES = 4000;

/**
 * The text the model gets for a tool result. `structuredContent`, when present, is the answer (as
 * JSON; MCP servers repeat it as text only for old clients). Text blocks are joined by newlines.
 * Binary content (images, audio, blob resources) is summarized as type, MIME type and size,
 * never dumped as base64 into the context. Anything over `maxOutputBytes` is cut with a marker.
 *
 * @throws ToolError `mcp_tool_error` with the server's text when the result has `isError: true`.
 * @public
 */
export function formatMcpResult(result: McpToolResultContent, source: McpResultSource): string {
  const hasStructured = result.structuredContent !== undefined && result.structuredContent !== null;
  const parts: string[] = hasStructured ? [JSON.stringify(result.structuredContent)] : [];
  for (const block of result.content ?? []) {
    if (hasStructured && block.type === "text") continue;
    parts.push(describeBlock(block));
  }
  const text = parts.join("\n");
  if (result.isError === true) {
    const message = text.trim() === "" ? "the tool reported an error without a message" : cutToBytes(text, MAX_ERROR_BYTES);
    throw new ToolError("mcp_tool_error", `${source.tool} (MCP server "${source.server}") failed: ${message}`, {
      data: { server: source.server, tool: source.tool },
    });
  }
  if (text === "") return "(the tool returned no content)";
  return cutToBytes(text, source.maxOutputBytes);
}

/** The text standing for one content block (binary content summarized, never dumped). */
export function describeBlock(block: ContentBlock): string {
  switch (block.type) {
    case "text":
      return block.text;
    case "image":
    case "audio":
      return `[${block.type}: ${block.mimeType}, ${countOf(base64Bytes(block.data), "byte")}, not shown]`;
    case "resource": {
      const { resource } = block;
      const mime = resource.mimeType ?? "unknown type";
      if ("text" in resource && typeof resource.text === "string") {
        return `[resource ${clip(resource.uri, 300)} (${mime}, ${countOf(utf8Length(resource.text), "byte")})]\n${resource.text}`;
      }
      const blob = "blob" in resource && typeof resource.blob === "string" ? resource.blob : "";
      return `[resource ${clip(resource.uri, 300)} (${mime}, ${countOf(base64Bytes(blob), "byte")} of binary data, not shown)]`;
    }
    case "resource_link": {
      const details = [block.mimeType, block.size === undefined ? undefined : countOf(block.size, "byte")]
        .filter(Boolean)
        .join(", ");
      return `[resource link ${clip(block.name, 200)}: ${clip(block.uri, 300)}${details === "" ? "" : ` (${details})`}]`;
    }
    default:
      return `[${String((block as { type?: unknown }).type)} content, not shown]`;
  }
}

/** Decoded size of base64 data, without decoding it. */
export function base64Bytes(data: string): number {
  const padding = data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding);
}
