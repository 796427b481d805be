import { type AnyToolDefinition, defineTool, ToolError } from "agent-tool-catalog";
import { z } from "zod";
import { countOf } from "../../errors/count-of.js";
import { byteCount } from "../sandbox/byte-count.js";
import { readBounded } from "./bounded-read.js";
import { checkFileToolOptions } from "./check-file-tool-options.js";
import { EDIT_MAX_BYTES, identityVersion } from "./edit-size-limit.js";
import type { FileScope } from "./file-scope.js";
import { guardedFileOperation } from "./file-scope-helpers.js";
import type { FileToolOptions } from "./file-tool-options.js";
import { fileVersion } from "./file-version.js";
import { anchorOf } from "./hashline.js";
import { READ_TRACKER } from "./read-tracker.js";
import { resolveFileScope } from "./resolve-file-scope.js";
import { looksBinary, splitLines } from "./text-content.js";

const DEFAULT_MAX_BYTES = 16 * 1024;
const MAX_MAX_BYTES = 1024 * 1024;

const readInput = z
  .object({
    path: z.string().min(1).optional().describe("File to read (relative to the workspace, or absolute)"),
    file_path: z.string().min(1).optional().describe("Alias of path"),
    offset: z.number().int().min(1).optional().describe("First line, 1-based"),
    limit: z.number().int().min(1).optional().describe("Most lines to return"),
    max_bytes: z.number().int().min(1).max(MAX_MAX_BYTES).optional().describe(`Default ${DEFAULT_MAX_BYTES}`),
  })
  .superRefine((input, issues) => {
    if (input.path === undefined && input.file_path === undefined) {
      issues.addIssue({ code: "custom", path: ["path"], message: "path (or file_path) is required" });
    }
    // Two different files is not a choice the tool should make for the model.
    if (input.path !== undefined && input.file_path !== undefined && input.path !== input.file_path) {
      issues.addIssue({
        code: "custom",
        path: ["file_path"],
        message: "file_path is an alias of path: give one of them, not both",
      });
    }
  });

/**
 * `read`: a text file's lines with numbers and its version token, deduplicated per run.
 *
 * @public
 */
export function createReadTool(options: FileToolOptions = {}): AnyToolDefinition {
  checkFileToolOptions(options, "createReadTool");
  return defineTool({
    name: "read",
    description:
      "Read a text file: numbered lines and its version token (for expected_version). " +
      "Use offset/limit for long files; an unchanged re-read returns a short note.",
    inputSchema: readInput,
    annotations: { title: "Read file", readOnlyHint: true },
    tags: ["builtin", "file", "fs", "read", "view", "cat"],
    handler: async (input, context) => {
      const requested = (input.path ?? input.file_path) as string;
      const scope = resolveFileScope(context, options);
      const maxBytes = input.max_bytes ?? DEFAULT_MAX_BYTES;
      const offset = input.offset ?? 1;
      const content = await readLines(scope, requested, offset, input.limit, maxBytes);
      if (looksBinary(content.head)) {
        throw new ToolError("binary_file", `"${requested}" is a binary file (${byteCount(content.size)}).`, {
          hint: "Use file_inspect to see its type and a hex dump.",
        });
      }
      const { version } = content;
      // A UTF-8 byte-order mark is not shown as part of line 1 (an invisible character the model
      // copied into edits, or took for text): the header says the file has one, and edit,
      // replace and apply_patch keep it.
      const bom = content.firstLine === 1 && content.lines[0]?.startsWith("\ufeff") === true;
      const lines = bom ? [(content.lines[0] as string).slice(1), ...content.lines.slice(1)] : content.lines;
      const bytes = { length: content.size };
      const rangeKey = `${offset}:${input.limit ?? "all"}:${maxBytes}`;
      const tracker = context.storage.get(READ_TRACKER);
      const absolute = await scope.resolve(requested, "read");
      if (tracker.seen(absolute, version, rangeKey)) {
        return `${requested} · ${version} · unchanged since your last read of these lines; use the content you already have.`;
      }
      const { totalLines } = content;
      checkOffset(requested, offset, content);
      const body = numberedLines(lines, content.firstLine, offset, input.limit, maxBytes, options.hashline === true);
      tracker.remember(absolute, version, rangeKey);
      // A file over the edit limit is read only up to its window: its lines are not counted.
      const of = totalLines === undefined ? "a file too large to count its lines (not editable)" : totalLines;
      const shown = body.count === 0 ? "empty file" : `lines ${offset}-${offset + body.count - 1} of ${of}`;
      const header = `${requested} · ${version} · ${shown} · ${byteCount(bytes.length)}${bom ? " · UTF-8 with BOM (kept by edits)" : ""}`;
      const more =
        totalLines === undefined || offset + body.count - 1 < totalLines
          ? `\n[more: continue with offset=${offset + body.count}]`
          : "";
      const cut = body.cutByBytes ? ` (cut at max_bytes=${maxBytes})` : "";
      return `${header}${cut}\n${body.text}${more}`;
    },
  });
}

/** Refuses an offset past the end, or past the first {@link EDIT_MAX_BYTES} of a larger file. */
function checkOffset(
  requested: string,
  offset: number,
  content: { readonly offsetNotReached: boolean; readonly size: number; readonly totalLines: number | undefined },
): void {
  const { totalLines } = content;
  if (content.offsetNotReached) {
    throw new ToolError(
      "too_large",
      `"${requested}" is ${byteCount(content.size)}, over the ${byteCount(EDIT_MAX_BYTES)} (64 MiB) read in full; line ${offset} is not within its first ${byteCount(EDIT_MAX_BYTES)}.`,
      { hint: "Read an earlier offset, or a late part with a command in bash (tail -c, sed -n)." },
    );
  }
  if (totalLines !== undefined && offset > Math.max(totalLines, 1)) {
    throw new ToolError(
      "offset_out_of_range",
      `"${requested}" has ${countOf(totalLines, "line")}; offset ${offset} is past the end.`,
      {
        hint: `Use an offset from 1 to ${Math.max(totalLines, 1)}.`,
      },
    );
  }
}

/**
 * Files up to this size are read whole; larger ones are streamed (bounded memory), and those over
 * {@link EDIT_MAX_BYTES} only up to the lines shown.
 */
const STREAM_THRESHOLD = 4 * 1024 * 1024;

/** The lines of a file from `offset` on (`lines[0]` is line `firstLine`), its version and size. */
async function readLines(scope: FileScope, requested: string, offset: number, limit: number | undefined, maxBytes: number) {
  const handle = await scope.openRead(requested);
  // A read that fails after the open (EIO: a failing disk, /proc/self/mem) is a file error with a
  // code, not a tool failure.
  return guardedFileOperation(requested, () => readOpened(handle, offset, limit, maxBytes));
}

async function readOpened(
  handle: Awaited<ReturnType<FileScope["openRead"]>>,
  offset: number,
  limit: number | undefined,
  maxBytes: number,
) {
  try {
    const stats = await handle.stat();
    if (stats.size > STREAM_THRESHOLD) {
      // A binary file is refused on its first 8 KiB: streamed and hashed whole first, a sparse
      // file a command made with `truncate -s 1T` held the call for minutes of the host's CPU.
      const head = Buffer.alloc(8192);
      const { bytesRead } = await handle.read(head, 0, head.length, 0);
      if (looksBinary(head.subarray(0, bytesRead)))
        return {
          version: "",
          size: stats.size,
          head: head.subarray(0, bytesRead),
          lines: [],
          totalLines: 0,
          offsetNotReached: false,
          firstLine: offset,
        };
      // Over the edit limit (or grown past it while read), the version is the file's identity, not
      // a hash of every byte, and only the window shown is read: hashing a 1 TiB sparse file a
      // command made held the call for minutes of the host's CPU.
      const streamed = await readBounded(handle, {
        offset,
        limit,
        maxBytes,
        hash: stats.size <= EDIT_MAX_BYTES,
        scanLimit: EDIT_MAX_BYTES,
      });
      const version = streamed.version === "" ? identityVersion(stats) : streamed.version;
      return { ...streamed, version, size: Math.max(stats.size, streamed.size), firstLine: offset };
    }
    const bytes = await handle.readFile();
    const lines = splitLines(bytes.toString("utf8"));
    return {
      version: fileVersion(bytes),
      size: bytes.length,
      head: bytes.subarray(0, 8192),
      lines,
      totalLines: lines.length as number | undefined,
      offsetNotReached: false,
      firstLine: 1,
    };
  } finally {
    await handle.close();
  }
}

/**
 * The first `maxBytes` bytes of `line`'s UTF-8, backed off to a character boundary: half a
 * character would reach the model as U+FFFD, which it may copy into an edit that then never matches.
 */
function cutAtCharacter(line: string, maxBytes: number): string {
  const bytes = Buffer.from(line);
  let end = Math.min(maxBytes, bytes.length);
  while (end > 0 && end < bytes.length && ((bytes[end] as number) & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end).toString("utf8");
}

function numberedLines(
  lines: readonly string[],
  firstLine: number,
  offset: number,
  limit: number | undefined,
  maxBytes: number,
  hashline: boolean,
) {
  const available = firstLine - 1 + lines.length;
  const end = limit === undefined ? available : Math.min(available, offset - 1 + limit);
  const out: string[] = [];
  let bytes = 0;
  let cutByBytes = false;
  for (let index = offset - 1; index < end; index++) {
    const text = lines[index - (firstLine - 1)] as string;
    const number = index + 1;
    const prefix = hashline ? `${anchorOf(number, text)}|` : `${String(number).padStart(6)}\t`;
    const line = `${prefix}${text}`;
    const size = Buffer.byteLength(line) + 1;
    if (bytes + size > maxBytes) {
      cutByBytes = true;
      // A single line longer than the budget is shown cut rather than not at all. Its number (or
      // anchor) is kept whole even past a tiny budget: cut, it left "[line cut]" naming no line.
      const room = Math.max(0, maxBytes - Buffer.byteLength(prefix));
      if (out.length === 0) out.push(`${prefix}${cutAtCharacter(text, room)} [line cut]`);
      break;
    }
    bytes += size;
    out.push(line);
  }
  return { text: out.join("\n"), count: out.length, cutByBytes };
}
