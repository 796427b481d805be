import { createHash } from "node:crypto";
import type { FileHandle } from "node:fs/promises";

const CHUNK = 1024 * 1024;

/** What a streamed read of a file returned: only the asked lines, but the whole file's version. */
export interface BoundedRead {
  /** The content hash of the whole file (the same token `fileVersion` gives). */
  readonly version: string;
  /** The file's size in bytes. */
  readonly size: number;
  /** The first 8 KiB (binary detection, type sniffing). */
  readonly head: Buffer;
  /** The lines kept, from line `offset` on, without their endings. */
  readonly lines: string[];
  /** Lines in the whole file. */
  readonly totalLines: number;
}

/**
 * Reads a file in 1 MiB chunks through an open handle: every byte is hashed (the version must be
 * the whole file's), but only lines `offset` to `offset + limit - 1` are kept, and of those at most
 * `maxBytes` bytes, so a huge file costs one pass and constant memory. Lines end at `\n` (a `\r`
 * before it is dropped).
 */
export async function readBounded(
  handle: FileHandle,
  options: { readonly offset: number; readonly limit: number | undefined; readonly maxBytes: number },
): Promise<BoundedRead> {
  const hash = createHash("sha256");
  const buffer = Buffer.allocUnsafe(CHUNK);
  const lines: string[] = [];
  let head: Buffer | undefined;
  let size = 0;
  let line = 1;
  let kept = 0;
  let partial: Buffer[] = [];
  let partialBytes = 0;
  let lastByte = -1;
  const wanted = () =>
    line >= options.offset && (options.limit === undefined || lines.length < options.limit) && kept <= options.maxBytes;
  const finishLine = () => {
    if (wanted()) {
      let text = Buffer.concat(partial).toString("utf8");
      if (text.endsWith("\r")) text = text.slice(0, -1);
      lines.push(text);
      kept += Buffer.byteLength(text) + 1;
    }
    partial = [];
    partialBytes = 0;
    line++;
  };
  const keep = (bytes: Buffer) => {
    // A line is kept up to the byte budget (a 500 MB line is shown cut, not held in memory).
    if (!wanted() || partialBytes > options.maxBytes) return;
    partial.push(Buffer.from(bytes.subarray(0, options.maxBytes + 1 - partialBytes)));
    partialBytes += bytes.length;
  };
  for (;;) {
    const { bytesRead } = await handle.read(buffer, 0, CHUNK, null);
    if (bytesRead === 0) break;
    const chunk = buffer.subarray(0, bytesRead);
    hash.update(chunk);
    if (head === undefined) head = Buffer.from(chunk.subarray(0, 8192));
    size += bytesRead;
    lastByte = chunk[bytesRead - 1] as number;
    let start = 0;
    for (let index = chunk.indexOf(10, start); index !== -1; index = chunk.indexOf(10, start)) {
      keep(chunk.subarray(start, index));
      finishLine();
      start = index + 1;
    }
    keep(chunk.subarray(start));
  }
  const totalLines = size === 0 ? 0 : lastByte === 10 ? line - 1 : line;
  if (size > 0 && lastByte !== 10) finishLine();
  return {
    version: `v_${hash.digest("hex").slice(0, 16)}`,
    size,
    head: head ?? Buffer.alloc(0),
    lines,
    totalLines,
  };
}
