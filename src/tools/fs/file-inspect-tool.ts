import { type AnyToolDefinition, defineTool, ToolError } from "agent-tool-catalog";
import { z } from "zod";
import { countOf } from "../../errors/count-of.js";
import { byteCount } from "../sandbox/byte-count.js";
import { type BoundedRead, readBounded } from "./bounded-read.js";
import { checkFileToolOptions } from "./check-file-tool-options.js";
import { EDIT_MAX_BYTES, identityVersion } from "./edit-size-limit.js";
import type { FileToolOptions } from "./file-tool-options.js";
import { fileVersion } from "./file-version.js";
import { resolveFileScope } from "./resolve-file-scope.js";
import { detectLineEnding, looksBinary, splitLines } from "./text-content.js";

const inspectInput = z.object({
  path: z.string().min(1).describe("File to inspect"),
  preview_lines: z.number().int().min(0).max(200).optional().describe("Lines of a text file to show (default 20)"),
  hex_bytes: z.number().int().min(0).max(4096).optional().describe("Bytes of a binary file to dump as hex (default 256)"),
});

const SIGNATURES: readonly { readonly type: string; readonly magic: readonly number[]; readonly offset?: number }[] = [
  { type: "image/png", magic: [0x89, 0x50, 0x4e, 0x47] },
  { type: "image/jpeg", magic: [0xff, 0xd8, 0xff] },
  { type: "image/gif", magic: [0x47, 0x49, 0x46, 0x38] },
  { type: "image/webp", magic: [0x57, 0x45, 0x42, 0x50], offset: 8 },
  { type: "application/pdf", magic: [0x25, 0x50, 0x44, 0x46] },
  { type: "application/zip", magic: [0x50, 0x4b, 0x03, 0x04] },
  { type: "application/gzip", magic: [0x1f, 0x8b] },
  { type: "application/x-elf", magic: [0x7f, 0x45, 0x4c, 0x46] },
  { type: "application/wasm", magic: [0x00, 0x61, 0x73, 0x6d] },
  { type: "application/x-sqlite3", magic: [0x53, 0x51, 0x4c, 0x69, 0x74, 0x65] },
];

/** The detected content type, by magic number. */
function sniffType(bytes: Uint8Array): string | undefined {
  return SIGNATURES.find(({ magic, offset = 0 }) => magic.every((byte, index) => bytes[offset + index] === byte))?.type;
}

function textEncoding(bytes: Uint8Array): string {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return "utf-8 (with BOM)";
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return "utf-16le (BOM)";
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return "utf-16be (BOM)";
  return bytes.every((byte) => byte < 0x80) ? "ascii" : "utf-8";
}

function hexDump(bytes: Uint8Array): string {
  const rows: string[] = [];
  for (let offset = 0; offset < bytes.length; offset += 16) {
    const row = bytes.subarray(offset, offset + 16);
    const hex = [...row].map((byte) => byte.toString(16).padStart(2, "0")).join(" ");
    const text = [...row].map((byte) => (byte >= 0x20 && byte < 0x7f ? String.fromCharCode(byte) : ".")).join("");
    rows.push(`${offset.toString(16).padStart(8, "0")}  ${hex.padEnd(47)}  ${text}`);
  }
  return rows.join("\n");
}

const LARGE_FILE = 4 * 1024 * 1024;

function inspectLarge(path: string, streamed: BoundedRead & { readonly version: string }, hexBytes: number): string {
  const binary = looksBinary(streamed.head);
  const type = sniffType(streamed.head) ?? (binary ? "application/octet-stream" : "text/plain");
  const lines = [
    `path: ${path}`,
    `type: ${type}`,
    `size: ${byteCount(streamed.size)}`,
    `version: ${streamed.version}`,
    `binary: ${binary}`,
  ];
  if (binary) {
    lines.push(
      `hex (first ${byteCount(Math.min(hexBytes, streamed.head.length))}):`,
      hexDump(streamed.head.subarray(0, hexBytes)),
    );
    return lines.join("\n");
  }
  lines.push(
    `encoding: ${textEncoding(streamed.head)} (first 8 KiB)`,
    `lines: ${streamed.totalLines ?? `not counted (over ${byteCount(EDIT_MAX_BYTES)}, 64 MiB)`}`,
  );
  if (streamed.lines.length > 0)
    lines.push(
      `preview (first ${countOf(streamed.lines.length, "line")}):`,
      ...streamed.lines.map((line, index) => `${String(index + 1).padStart(6)}\t${line}`),
    );
  return lines.join("\n");
}

/**
 * `file_inspect`: what a file is (type, size, encoding, line endings, binary or not) with a preview.
 *
 * @public
 */
export function createFileInspectTool(options: FileToolOptions = {}): AnyToolDefinition {
  checkFileToolOptions(options, "createFileInspectTool");
  return defineTool({
    name: "file_inspect",
    description:
      "Inspect a file without reading it all: type, size, encoding, line endings, binary detection, and a preview (text lines or a hex dump).",
    inputSchema: inspectInput,
    annotations: { title: "Inspect file", readOnlyHint: true },
    tags: ["builtin", "file", "inspect", "binary", "hex", "encoding", "type"],
    handler: async (input, context) => {
      const scope = resolveFileScope(context, options);
      const stats = await scope.stat(input.path);
      if (stats === undefined)
        throw new ToolError("file_not_found", `No file at "${input.path}".`, { hint: "Check the path with ls or glob." });
      if (stats.isDirectory())
        throw new ToolError("is_a_directory", `"${input.path}" is a directory.`, { hint: "Use ls to list it." });
      const handle = await scope.openRead(input.path);
      let bytes: Buffer;
      try {
        const opened = await handle.stat();
        if (opened.size > LARGE_FILE) {
          // Constant memory: hash the whole file, keep the head and the preview lines only; over
          // the edit limit, nothing is hashed (the version is the file's identity) and the read
          // stops after the preview: a 1 TiB sparse file is not read to its end.
          const streamed = await readBounded(handle, {
            offset: 1,
            limit: input.preview_lines ?? 20,
            maxBytes: 64 * 1024,
            hash: opened.size <= EDIT_MAX_BYTES,
            scanLimit: EDIT_MAX_BYTES,
          });
          const version = streamed.version === "" ? identityVersion(opened) : streamed.version;
          return inspectLarge(
            input.path,
            { ...streamed, version, size: Math.max(opened.size, streamed.size) },
            input.hex_bytes ?? 256,
          );
        }
        bytes = await handle.readFile();
      } finally {
        await handle.close();
      }
      const binary = looksBinary(bytes);
      const type = sniffType(bytes) ?? (binary ? "application/octet-stream" : "text/plain");
      const lines = [
        `path: ${input.path}`,
        `type: ${type}`,
        `size: ${byteCount(bytes.length)}`,
        `version: ${fileVersion(bytes)}`,
        `binary: ${binary}`,
      ];
      if (binary) {
        const count = input.hex_bytes ?? 256;
        lines.push(`hex (first ${byteCount(Math.min(count, bytes.length))}):`, hexDump(bytes.subarray(0, count)));
        return lines.join("\n");
      }
      const text = bytes.toString("utf8");
      const endings = detectLineEnding(text);
      const all = splitLines(text);
      lines.push(
        `encoding: ${textEncoding(bytes)}`,
        `line endings: ${endings.kind}${endings.kind === "mixed" ? ` (lf ${endings.lf}, crlf ${endings.crlf}, cr ${endings.cr})` : ""}`,
        `lines: ${all.length}`,
        `final newline: ${/(\r\n|\n|\r)$/.test(text)}`,
      );
      const preview = all.slice(0, input.preview_lines ?? 20);
      if (preview.length > 0)
        lines.push(
          `preview (first ${countOf(preview.length, "line")}):`,
          ...preview.map((line, index) => `${String(index + 1).padStart(6)}\t${line}`),
        );
      return lines.join("\n");
    },
  });
}
