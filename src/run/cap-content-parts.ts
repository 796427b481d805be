import type { ToolContentPart } from "../tool/tool-content.js";
import { condenseText } from "./condense-text.js";
import { capText } from "./json-safe-output.js";
import { wellFormed } from "./well-formed-text.js";

/** The size of a base64 string's bytes. */
function decodedBytes(base64: string): number {
  const padding = base64.endsWith("==") ? 2 : base64.endsWith("=") ? 1 : 0;
  return Math.floor((base64.length * 3) / 4) - padding;
}

function describeBytes(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / (1024 * 1024)).toFixed(1)} MiB` : `${Math.ceil(bytes / 1024)} KiB`;
}

/**
 * Most image and file parts one result passes on. The byte budget alone let 100,000 tiny images
 * through (a hostile MCP server's result): no provider takes that many in a request (Anthropic's
 * API stops at 100 per request, Bedrock at 20) and each costs tokens whatever its size.
 */
export const MAX_BINARY_PARTS = 20;

/**
 * Keeps a result's parts within the run's limits: text parts are condensed like text outputs, and
 * binary parts are kept in order while their decoded bytes fit `maxBinaryBytes`; a part that does
 * not fit (or is not valid base64) becomes a text part saying what was left out, so the model
 * knows it exists. Past `MAX_BINARY_PARTS` kept, the other binary parts are dropped and counted
 * in one closing text part (one line each would be 100,000 lines). `redact`, when given, rewrites each whole text part (cut at 8 Mi characters
 * first, and what it returns too) before it is condensed: condensing first split a secret across
 * the cut, and neither half matched the hook.
 */
export function capContentParts(
  parts: readonly ToolContentPart[],
  limits: { readonly condenseThreshold: number; readonly maxBinaryBytes: number },
  redact?: (text: string) => string,
): ToolContentPart[] {
  let budget = limits.maxBinaryBytes;
  let kept = 0;
  let dropped = 0;
  const out: ToolContentPart[] = [];
  for (const part of parts) {
    if (part === null || typeof part !== "object") continue;
    if (part.type === "text") {
      const text = redact === undefined ? wellFormed(String(part.text)) : capText(redact(capText(String(part.text))));
      out.push({
        type: "text",
        text: text.length > limits.condenseThreshold ? condenseText(text, limits.condenseThreshold) : text,
      });
      continue;
    }
    if (part.type !== "image" && part.type !== "file") continue;
    if (kept >= MAX_BINARY_PARTS) {
      dropped++;
      continue;
    }
    const kind = part.type === "image" ? "image" : "file";
    if (typeof part.data !== "string" || !/^[A-Za-z0-9+/]*={0,2}$/.test(part.data) || typeof part.mediaType !== "string") {
      out.push({ type: "text", text: `[${kind} omitted: its data is not base64 with a media type]` });
      continue;
    }
    const bytes = decodedBytes(part.data);
    if (bytes > budget) {
      out.push({
        type: "text",
        text: `[${kind} omitted: ${part.mediaType}, ${describeBytes(bytes)}, over the ${describeBytes(limits.maxBinaryBytes)} a result may carry]`,
      });
      continue;
    }
    budget -= bytes;
    kept++;
    out.push(part);
  }
  if (dropped > 0) {
    out.push({
      type: "text",
      text: `[${dropped} more image and file parts omitted: a result may carry at most ${MAX_BINARY_PARTS}]`,
    });
  }
  return out;
}

/** The text of a result's parts, for `output` and for providers that take only text. */
export function contentPartsAsText(parts: readonly ToolContentPart[]): string {
  return parts
    .map((part) =>
      part.type === "text"
        ? part.text
        : `[${part.type}: ${part.mediaType}, ${describeBytes(decodedBytes(part.data))}${part.type === "file" && part.filename !== undefined ? `, ${part.filename}` : ""}]`,
    )
    .join("\n\n");
}
