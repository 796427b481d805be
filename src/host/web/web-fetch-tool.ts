import { type AnyToolDefinition, defineTool } from "agent-tool-catalog";
import { countOf } from "../../errors/count-of.js";
import { lazySchemas } from "../shared/lazy-zod.js";
import { fetchForCall } from "./fetch-for-call.js";
import type { WebFetcher, WebPage } from "./web-fetcher.js";

const DEFAULT_MAX_CHARS = 20_000;

const schemas = lazySchemas((z) => {
  const fetchInput = z.object({
    url: z.string().min(1).max(8192).describe("The http(s) URL of the page"),
    offset: z.number().int().min(0).optional().describe("Start at this character of the page text (default 0), to read on"),
    max_chars: z
      .number()
      .int()
      .min(100)
      .max(200_000)
      .optional()
      .describe(`Most characters of text to return (default ${DEFAULT_MAX_CHARS})`),
    timeout_seconds: z.number().min(1).max(120).optional().describe("Give up after this many seconds (default 20)"),
  });
  return { fetchInput };
});

/** A header line plus a window of the page's text, with a marker saying how to read on. */
export function formatPage(page: WebPage, offset: number, maxChars: number): string {
  const window = page.text.slice(offset, offset + maxChars);
  const end = offset + window.length;
  const header = [
    `URL: ${page.url}`,
    `HTTP ${page.status} · ${page.contentType} · ${countOf(page.bytes, "byte")}${page.truncated ? " (cut at the size limit)" : ""} · characters ${offset}-${end} of ${page.text.length}`,
    ...(page.title === undefined ? [] : [`Title: ${page.title}`]),
  ].join("\n");
  const more = end < page.text.length ? `\n\n[more: continue with offset=${end}]` : "";
  return `${header}\n\n${window}${more}`;
}

/**
 * `web_fetch`: one page as text, read in windows (`offset`, `max_chars`).
 *
 * @public
 */
export function createWebFetchTool(fetcher: WebFetcher): AnyToolDefinition {
  return defineTool({
    name: "web_fetch",
    description:
      "Fetch a web page and return it as text (HTML converted, links kept). Long pages come in windows: continue with offset.",
    inputSchema: schemas().fetchInput,
    tier: "deferred",
    annotations: { title: "Fetch web page", readOnlyHint: true, openWorldHint: true },
    tags: ["builtin", "web", "fetch", "http", "url", "page", "html", "read"],
    handler: async (input, context) => {
      const page = await fetchForCall(fetcher, input, context);
      return formatPage(page, input.offset ?? 0, input.max_chars ?? DEFAULT_MAX_CHARS);
    },
  });
}
