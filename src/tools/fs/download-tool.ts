import { type AnyToolDefinition, defineTool, type ToolContext, ToolError } from "agent-tool-catalog";
import { z } from "zod";
import { countOf } from "../../errors/count-of.js";
import { byteCount } from "../sandbox/byte-count.js";
import { assertPublicHost, checkedGet, RefusedAddressError, TooManyRedirectsError } from "../sandbox/checked-http-get.js";
import { checkFileToolOptions } from "./check-file-tool-options.js";
import { readIfPresent, versionOf } from "./commit-file-changes.js";
import { EDIT_JOURNAL } from "./edit-journal.js";
import { EDIT_MAX_BYTES, identityVersion, readForEdit } from "./edit-size-limit.js";
import { refuseDirectorySpelling } from "./file-errors.js";
import type { FileScope } from "./file-scope.js";
import type { FileToolOptions } from "./file-tool-options.js";
import { ABSENT_FILE_VERSION } from "./file-version.js";
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

/**
 * Options of the `download` tool; all of them are the host's.
 *
 * @public
 */
export interface DownloadToolOptions extends FileToolOptions {
  /**
   * Let `download` reach loopback, link-local (cloud metadata), private, unique-local, CGNAT and
   * IPv4-mapped addresses under the `local` and `workspace` sandbox scopes. Under `unrestricted`
   * they are always reachable.
   * @defaultValue `false`
   */
  readonly allowPrivateNetwork?: boolean;
}

/** A fetched response, whichever client fetched it. */
interface Fetched {
  readonly status: number;
  readonly statusText: string;
  readonly contentLength: string | undefined;
  readonly body: AsyncIterable<Uint8Array> | null;
}

/**
 * `download`: saves a URL to a file, streamed to a temporary file and renamed: never a partial
 * file. Under the `local` and `workspace` scopes it refuses non-public addresses (the host
 * itself, its private networks, cloud metadata), checked on every redirect and on the address
 * each name resolves to, which is the address connected to.
 * @public
 */
export function createDownloadTool(options: DownloadToolOptions = {}): AnyToolDefinition {
  checkFileToolOptions(options, "createDownloadTool");
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
      refuseDirectorySpelling(input.file_path);
      const scope = resolveFileScope(context, options);
      const before = await readIfPresent(scope, input.file_path);
      const maxBytes = input.max_bytes ?? DEFAULT_MAX_BYTES;
      const timeout = AbortSignal.timeout((input.timeout_seconds ?? 20) * 1000);
      const signal = AbortSignal.any([context.signal, timeout]);
      const allowPrivate = options.allowPrivateNetwork === true || context.permissions.sandbox === "unrestricted";
      let received = 0;
      let status = 0;
      let made: readonly string[] = [];
      let body: Fetched["body"] = null;
      try {
        const response = await fetchUrl(url, signal, allowPrivate, options.fetch);
        body = response.body;
        status = response.status;
        if (status < 200 || status > 299)
          throw new ToolError(
            "http_error",
            `GET ${url.href} answered ${response.status} ${response.statusText}. Nothing was saved.`,
          );
        const declared = Number(response.contentLength ?? Number.NaN);
        if (declared > maxBytes) throw tooLarge(declared, maxBytes);
        // The change makes the missing directories itself and, when it fails (over max_bytes, a
        // full disk, a timeout), removes them again: made here first, they were left behind.
        const stream = body;
        made = await scope.replaceStreaming(input.file_path, async (handle) => {
          if (stream === null) return;
          const chunks = stream[Symbol.asyncIterator]();
          for (;;) {
            // A failed read of the body (the connection reset mid-body) is the download's failure:
            // raised as it is, the file change took its errno for the file system's (ECONNRESET
            // answered as file_system_error "on" the file). Only the read is wrapped, so a failed
            // write (ENOSPC) is still the file system's.
            const next = await chunks.next().catch((error: unknown) => {
              throw timeout.aborted || context.signal.aborted ? error : failedDownload(error, url);
            });
            if (next.done === true) break;
            try {
              received += next.value.byteLength;
              if (received > maxBytes) throw tooLarge(received, maxBytes);
              await handle.write(next.value);
            } catch (error) {
              // As `for await` would: the body is let go of, and this error (not the close's) stands.
              await Promise.resolve(chunks.return?.()).catch(() => undefined);
              throw error;
            }
          }
        });
      } catch (error) {
        discard(body);
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
        throw failedDownload(error, url);
      }
      const saved = `Saved ${url.href} (HTTP ${status}, ${byteCount(received)}) to ${input.file_path}`;
      return `${saved} · ${await journalDownload(scope, context, input.file_path, { before, received, made })}`;
    },
  });
}

/**
 * Lets go of a response body the call did not read to its end (refused by its status or declared
 * length, or the change failed before or while writing it): left unread, a node response stays
 * paused on its connection, which then stays open for as long as the host runs.
 */
function discard(body: Fetched["body"]): void {
  if (body === null) return;
  if ("destroy" in body && typeof body.destroy === "function") body.destroy();
  else if (body instanceof ReadableStream) body.cancel().catch(() => undefined);
}

/**
 * GETs `url`. The default client pins each connection to a checked address; a host-injected
 * `fetch` resolves names itself, so there each hop's name is checked before the request and
 * redirects are followed by hand (a name that changes its answer in between is the host's risk).
 */
async function fetchUrl(
  url: URL,
  signal: AbortSignal,
  allowPrivate: boolean,
  injected: typeof fetch | undefined,
): Promise<Fetched> {
  if (injected === undefined) {
    const response = await checkedGet(url, { signal, allowPrivateAddresses: allowPrivate });
    const length = response.headers["content-length"];
    return { status: response.status, statusText: response.statusText, contentLength: length, body: response.body };
  }
  let current = url;
  for (let hop = 0; hop <= 10; hop++) {
    if (!allowPrivate) await assertPublicHost(current);
    const response = await injected(current, { signal, redirect: "manual" });
    const location = response.headers.get("location");
    if (response.status < 300 || response.status > 399 || location === null) {
      return {
        status: response.status,
        statusText: response.statusText,
        contentLength: response.headers.get("content-length") ?? undefined,
        body: response.body,
      };
    }
    await response.body?.cancel();
    current = new URL(location, current);
    if (current.protocol !== "http:" && current.protocol !== "https:") {
      throw new RefusedAddressError(current.href, `a redirect led to ${current.protocol}, which is not http or https`);
    }
  }
  throw new TooManyRedirectsError(10);
}

/**
 * Journals a saved download like any other write, so undo can remove or restore it, and answers
 * its version (and, over the edit limit, that undo cannot take it back).
 */
async function journalDownload(
  scope: FileScope,
  context: ToolContext,
  requested: string,
  saved: { readonly before: Buffer | undefined; readonly received: number; readonly made: readonly string[] },
): Promise<string> {
  const target = await scope.resolve(requested, "write");
  context.storage.get(READ_TRACKER).forget(target);
  // Over the edit limit, not read back: the journal would hold it whole (up to max_bytes, 1 GiB,
  // in memory and in every saved run) for an undo that refuses files this large anyway.
  const after = saved.received > EDIT_MAX_BYTES ? undefined : await readBack(scope, requested);
  if (after === undefined) {
    const stats = await scope.stat(requested);
    const version = stats === undefined ? ABSENT_FILE_VERSION : identityVersion(stats);
    return `${version}. It is over the 64 MiB the file tools edit: undo cannot take this download back.`;
  }
  context.storage
    .get(EDIT_JOURNAL)
    .record(
      "download",
      [{ path: target, displayPath: requested, realPath: await scope.lockKey(requested), before: saved.before, after }],
      saved.made,
    );
  return versionOf(after);
}

/**
 * The saved file as it is now, for the journal; `undefined` when it is over the edit limit (grown
 * since it was saved) and so not read whole.
 */
async function readBack(scope: FileScope, requested: string): Promise<Buffer | undefined> {
  try {
    return await readForEdit(scope, requested);
  } catch (error) {
    if (error instanceof ToolError && error.code === "too_large") return undefined;
    throw error;
  }
}

/** The model-facing error of a download that failed on the way (refused address, redirects, network). */
function failedDownload(error: unknown, url: URL): ToolError {
  if (error instanceof RefusedAddressError) {
    return new ToolError("address_not_allowed", `The download of ${url.href} was refused: ${error.message}. Nothing was saved.`, {
      hint: "This run's sandbox does not let downloads reach the host or its private networks; use a public URL.",
    });
  }
  if (error instanceof TooManyRedirectsError) {
    return new ToolError("download_failed", `The download of ${url.href} followed ${error.message}. Nothing was saved.`);
  }
  return new ToolError("download_failed", `The download of ${url.href} failed: ${(error as Error).message}. Nothing was saved.`);
}

function tooLarge(size: number, maxBytes: number): ToolError {
  return new ToolError(
    "too_large",
    `The download is over max_bytes (${countOf(size, "byte")} > ${countOf(maxBytes, "byte")}). Nothing was saved.`,
    {
      hint: "Raise max_bytes if you really need the whole file.",
    },
  );
}
