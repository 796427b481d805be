import path from "node:path";
import { type AnyToolDefinition, defineTool, ToolError } from "agent-tool-catalog";
import { z } from "zod";
import { readIfPresent, versionOf } from "./commit-file-changes.js";
import { EDIT_JOURNAL } from "./edit-journal.js";
import type { FileToolOptions } from "./file-tool-options.js";
import { READ_TRACKER } from "./read-tracker.js";
import { resolveFileScope } from "./resolve-file-scope.js";

const DEFAULT_MAX_BYTES = 50 * 1024 * 1024;

const downloadInput = z.object({
  url: z.string().url().describe("http(s) URL to download"),
  file_path: z.string().min(1).describe("Where to save it"),
  timeout_seconds: z.number().min(1).max(600).optional().describe("Give up after this many seconds (default 20)"),
  max_bytes: z
    .number()
    .int()
    .min(1)
    .max(1024 * 1024 * 1024)
    .optional()
    .describe("Refuse bodies larger than this (default 50 MB)"),
});

/** `download`: saves a URL to a file, streamed to a temporary file and renamed: never a partial file. */
export function createDownloadTool(options: FileToolOptions = {}): AnyToolDefinition {
  return defineTool({
    name: "download",
    description:
      "Download a URL to a file. The body is streamed to a temporary file and renamed when complete; on error or over max_bytes nothing is left.",
    inputSchema: downloadInput,
    mutating: true,
    annotations: { title: "Download file", destructiveHint: true, openWorldHint: true },
    tags: ["builtin", "download", "http", "url", "fetch", "file", "save"],
    handler: async (input, context) => {
      const url = new URL(input.url);
      if (url.protocol !== "http:" && url.protocol !== "https:") {
        throw new ToolError("unsupported_url", `Only http and https URLs can be downloaded, not ${url.protocol}.`);
      }
      const scope = resolveFileScope(context, options);
      const before = await readIfPresent(scope, input.file_path);
      const maxBytes = input.max_bytes ?? DEFAULT_MAX_BYTES;
      const timeout = AbortSignal.timeout((input.timeout_seconds ?? 20) * 1000);
      const signal = AbortSignal.any([context.signal, timeout]);
      const fetcher = options.fetch ?? globalThis.fetch;
      let received = 0;
      let status = 0;
      try {
        const response = await fetcher(url, { signal, redirect: "follow" });
        status = response.status;
        if (!response.ok)
          throw new ToolError(
            "http_error",
            `GET ${url.href} answered ${response.status} ${response.statusText}. Nothing was saved.`,
          );
        const declared = Number(response.headers.get("content-length") ?? Number.NaN);
        if (declared > maxBytes) throw tooLarge(declared, maxBytes);
        const body = response.body;
        const parent = path.dirname(input.file_path);
        if ((await scope.stat(parent)) === undefined) await scope.makeDirectory(parent);
        await scope.replaceStreaming(input.file_path, async (handle) => {
          if (body === null) return;
          for await (const chunk of body) {
            received += chunk.byteLength;
            if (received > maxBytes) throw tooLarge(received, maxBytes);
            await handle.write(chunk);
          }
        });
      } catch (error) {
        if (timeout.aborted && !context.signal.aborted) {
          throw new ToolError(
            "timeout",
            `The download of ${url.href} took longer than ${input.timeout_seconds ?? 20} s. Nothing was saved.`,
            {
              hint: "Raise timeout_seconds, or try again later.",
            },
          );
        }
        if (error instanceof ToolError || context.signal.aborted) throw error;
        throw new ToolError(
          "download_failed",
          `The download of ${url.href} failed: ${(error as Error).message}. Nothing was saved.`,
        );
      }
      const after = await scope.read(input.file_path);
      // Journal the finished file like any other write, so undo can remove or restore it.
      context.storage
        .get(EDIT_JOURNAL)
        .record("download", [
          { path: await scope.resolve(input.file_path, "write"), displayPath: input.file_path, before, after },
        ]);
      context.storage.get(READ_TRACKER).forget(await scope.resolve(input.file_path, "write"));
      return `Saved ${url.href} (HTTP ${status}, ${after.length} bytes) to ${input.file_path} · ${versionOf(after)}`;
    },
  });
}

function tooLarge(size: number, maxBytes: number): ToolError {
  return new ToolError("too_large", `The download is over max_bytes (${size} > ${maxBytes} bytes). Nothing was saved.`, {
    hint: "Raise max_bytes if you really need the whole file.",
  });
}
