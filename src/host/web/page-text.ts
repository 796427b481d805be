import { ToolError } from "agent-tool-catalog";
import type { convert } from "html-to-text";
import { loadOnDemand } from "../../tool/load-on-demand.js";

// Loaded by the first call that needs it, not by the host entry's import (src/tool/load-on-demand.ts).
const htmlToText = loadOnDemand<{ convert: typeof convert }>("html-to-text");

const HTML_TYPES = new Set(["text/html", "application/xhtml+xml"]);
const TEXT_TYPES = new Set([
  "application/json",
  "application/xml",
  "application/javascript",
  "application/x-ndjson",
  "application/yaml",
  "application/toml",
]);

/** The media type and charset of a `Content-Type` header. */
export function parseContentType(header: string | null): { readonly mediaType: string; readonly charset: string | undefined } {
  if (header === null) return { mediaType: "", charset: undefined };
  const [type = "", ...parameters] = header.split(";");
  const charset = parameters
    .map((parameter) => parameter.trim().split("="))
    .find(([key]) => key?.toLowerCase() === "charset")?.[1]
    ?.replace(/^"|"$/g, "");
  return { mediaType: type.trim().toLowerCase(), charset };
}

function kindOf(mediaType: string, body: Uint8Array): "html" | "text" | "binary" {
  if (HTML_TYPES.has(mediaType)) return "html";
  if (mediaType.startsWith("text/") || TEXT_TYPES.has(mediaType) || /\+(json|xml)$/.test(mediaType)) return "text";
  if (mediaType !== "" && mediaType !== "application/octet-stream") return "binary";
  // No (or a generic) type: sniff. A NUL byte means binary; a leading tag means HTML.
  const head = body.subarray(0, 1024);
  if (head.includes(0)) return "binary";
  return /^\s*<(!doctype html|html|head|body)/i.test(new TextDecoder().decode(head)) ? "html" : "text";
}

function decode(body: Uint8Array, charset: string | undefined): string {
  try {
    return new TextDecoder(charset ?? "utf-8").decode(body);
  } catch {
    // An unknown charset label: UTF-8 is the best guess for the web.
    return new TextDecoder("utf-8").decode(body);
  }
}

/** A link as the model should follow it: absolute, against the page's (final) URL. */
function absolute(href: string, base: string): string {
  try {
    return new URL(href, base).href;
  } catch {
    return href;
  }
}

/**
 * The text of the first `<title>`, found in one forward pass. The regular expression it replaces,
 * `/<title[^>]*>([\s\S]*?)<\/title>/i`, scanned to the end of the page from every `<title` when
 * no `</title>` followed: a 240 KB page of `<title` repeated took 7.6 s of CPU on the host's
 * thread, and a 5 MiB one about an hour, beyond any timeout's reach.
 */
function titleOf(html: string): string | undefined {
  const open = /<title/gi;
  if (open.exec(html) === null) return undefined;
  const contentStart = html.indexOf(">", open.lastIndex) + 1;
  if (contentStart === 0) return undefined;
  const close = /<\/title>/gi;
  close.lastIndex = contentStart;
  if (close.exec(html) === null) return undefined;
  const title = convertHtml(html.slice(contentStart, close.lastIndex - "</title>".length), { wordwrap: false }).trim();
  return title === "" ? undefined : title;
}

/**
 * html-to-text's `convert`, or for markup nested deeper than its recursion goes (a page of
 * 10,000 nested `<div>`s overflowed the stack, and the model got only `fetch_failed`), the text
 * between the tags. `[^<>]` keeps that fallback linear.
 */
function convertHtml(html: string, options: Parameters<typeof convert>[1]): string {
  try {
    return htmlToText().convert(html, options);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    return html
      .replace(/<(script|style)\b[^<>]*>[^<]*/gi, "")
      .replace(/<[^<>]*>/g, " ")
      .replace(/[ \t]+/g, " ")
      .trim();
  }
}

/**
 * A body as readable text, by content type: HTML converted to text (links kept, images and
 * scripts dropped), other text types decoded with their charset.
 * @throws ToolError `unsupported_content_type` for images, PDFs, archives and other binaries.
 */
export function pageText(
  body: Uint8Array,
  contentType: string | null,
  url: string,
): { readonly text: string; readonly title: string | undefined; readonly mediaType: string } {
  const { mediaType, charset } = parseContentType(contentType);
  const kind = kindOf(mediaType, body);
  if (kind === "binary") {
    throw new ToolError("unsupported_content_type", `${url} is ${mediaType || "binary data"}, not a text page.`, {
      hint: "Use download to save binary files.",
      data: { contentType: mediaType },
    });
  }
  const raw = decode(body, charset);
  if (kind === "text") return { text: raw, title: undefined, mediaType: mediaType || "text/plain" };
  const text = convertHtml(raw, {
    wordwrap: false,
    selectors: [
      { selector: "img", format: "skip" },
      { selector: "script", format: "skip" },
      { selector: "style", format: "skip" },
      { selector: "a", options: { pathRewrite: (href: string) => absolute(href, url), hideLinkHrefIfSameAsText: true } },
      ...["h1", "h2", "h3", "h4", "h5", "h6"].map((selector) => ({ selector, options: { uppercase: false } })),
    ],
  });
  return { text: text.trim(), title: titleOf(raw), mediaType: mediaType || "text/html" };
}
