import { createHash } from "node:crypto";
import type { FileHandle } from "node:fs/promises";

const CHUNK = 1024 * 1024;

/** What a streamed read of a file returned: only the asked lines, but the whole file's version. */
export interface BoundedRead {
  /** The content hash of the whole file (the same token `fileVersion` gives); `""` when not hashed. */
  readonly version: string;
  /** The file's size in bytes (the bytes scanned when the read stopped at its window). */
  readonly size: number;
  /** The first 8 KiB (binary detection, type sniffing). */
  readonly head: Buffer;
  /** The lines kept, from line `offset` on, without their endings. */
  readonly lines: string[];
  /** Lines in the whole file; `undefined` when the read stopped at its window, before the end. */
  readonly totalLines: number | undefined;
  /** True when the read stopped after `scanLimit` bytes without reaching line `offset`. */
  readonly offsetNotReached: boolean;
}

/**
 * Reads a file in 1 MiB chunks through an open handle: every byte is hashed (the version must be
 * the whole file's), but only lines `offset` to `offset + limit - 1` are kept, and of those at most
 * `maxBytes` bytes, so a huge file costs one pass and constant memory. Lines end at `\n` (a `\r`
 * before it is dropped).
 *
 * With `hash: false` (a file too large to hash: its version is its identity) nothing is hashed and
 * the read stops once its window is complete, or after `scanLimit` bytes: a 1 TiB sparse file
 * costs the lines shown, not a pass over a terabyte. A hashed read of a file that grows past
 * `scanLimit` meanwhile stops hashing there (its `version` is then `""`) and ends as such a read.
 */
export async function readBounded(
  handle: FileHandle,
  options: {
    readonly offset: number;
    readonly limit: number | undefined;
    readonly maxBytes: number;
    readonly hash?: boolean;
    readonly scanLimit?: number;
  },
): Promise<BoundedRead> {
  const scanLimit = options.scanLimit ?? Number.POSITIVE_INFINITY;
  let hash = options.hash === false ? undefined : createHash("sha256");
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
  const splitChunk = (chunk: Buffer) => {
    let start = 0;
    for (let index = chunk.indexOf(10, start); index !== -1; index = chunk.indexOf(10, start)) {
      keep(chunk.subarray(start, index));
      finishLine();
      start = index + 1;
    }
    keep(chunk.subarray(start));
  };
  // The window is complete: past its last line, over the byte budget, or in a line already cut.
  const windowDone = () => line >= options.offset && (!wanted() || partialBytes > options.maxBytes);
  let stopped = false;
  for (;;) {
    if (hash !== undefined && size > scanLimit) hash = undefined;
    // The first chunk is always read: its head tells text from binary.
    stopped = hash === undefined && head !== undefined && (windowDone() || size >= scanLimit);
    if (stopped) break;
    const { bytesRead } = await handle.read(buffer, 0, CHUNK, null);
    if (bytesRead === 0) break;
    const chunk = buffer.subarray(0, bytesRead);
    hash?.update(chunk);
    if (head === undefined) head = Buffer.from(chunk.subarray(0, 8192));
    size += bytesRead;
    lastByte = chunk[bytesRead - 1] as number;
    splitChunk(chunk);
  }
  const offsetNotReached = stopped && line < options.offset;
  const totalLines = stopped ? undefined : linesIn(size, lastByte, line);
  // A line the stop cut (or the last line, without its newline) is kept as far as it was read.
  if (size > 0 && (stopped ? partialBytes > 0 : lastByte !== 10)) finishLine();
  return {
    version: hash === undefined ? "" : `v_${hash.digest("hex").slice(0, 16)}`,
    size,
    head: head ?? Buffer.alloc(0),
    lines,
    totalLines,
    offsetNotReached,
  };
}

/** The lines of a file read to its end: `line` is the one after the last newline seen. */
function linesIn(size: number, lastByte: number, line: number): number {
  if (size === 0) return 0;
  return lastByte === 10 ? line - 1 : line;
}
