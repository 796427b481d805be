import type { FileHandle } from "node:fs/promises";
import type { RipgrepBinaryScan } from "./grep-binary-cutoff.js";
import { looksBinary } from "./text-content.js";

/** Files larger than this are searched in pieces of about this many bytes (bounded memory). */
export const GREP_CHUNK_BYTES = 4 * 1024 * 1024;

/** The longest line a chunked search holds in memory; a file with a longer one is reported unsearched. */
export const GREP_MAX_LINE_BYTES = 64 * 1024 * 1024;

/** Thrown when a line is longer than {@link GREP_MAX_LINE_BYTES}: the file is reported as not searched. */
export class LineTooLongError extends Error {
  constructor() {
    super(`a line longer than ${GREP_MAX_LINE_BYTES / 1024 / 1024} MiB`);
    this.name = "LineTooLongError";
  }
}

/**
 * A file's text in pieces of whole lines, each ending just after a `\n` (the last one may end
 * without), read `chunkBytes` at a time, each byte once: a line crossing a read border is carried
 * into the next piece whole, and a split at `\n` never splits a UTF-8 sequence. Nothing is yielded
 * for a binary file (judged on its first bytes, as a file read whole is), unless `binary` is given
 * (a file found in a directory): then the bytes read are handed to it too, and only the lines
 * ripgrep searches are yielded, the ones before its cutoff at a NUL byte.
 */
export async function* readLinePieces(
  handle: FileHandle,
  chunkBytes = GREP_CHUNK_BYTES,
  binary: RipgrepBinaryScan | undefined = undefined,
): AsyncGenerator<string> {
  const buffer = Buffer.allocUnsafe(chunkBytes);
  // The bytes read but not yielded yet, in copies (`buffer` is reused by the next read), from
  // file offset `carryStart` on.
  let carry: Buffer[] = [];
  let carryStart = 0;
  // Where the last line read starts: a line longer than GREP_MAX_LINE_BYTES is refused.
  let lineStart = 0;
  let position = 0;
  for (;;) {
    const { bytesRead } = await handle.read(buffer, 0, chunkBytes, position);
    const read = buffer.subarray(0, bytesRead);
    binary?.take(read, bytesRead === 0);
    if (bytesRead === 0) break;
    if (position === 0 && binary === undefined && looksBinary(read)) return;
    const newline = read.lastIndexOf(10);
    if (newline !== -1) lineStart = position + newline + 1;
    position += bytesRead;
    // Whole lines, and (for a file found in a directory) only those ripgrep is known to search.
    const ready = (binary === undefined ? lineStart : binary.searchedBefore) - carryStart;
    if (ready > 0) {
      const bytes = carry.length === 0 ? read : Buffer.concat([...carry, read]);
      yield bytes.subarray(0, ready).toString("utf8");
      carry = ready < bytes.length ? [Buffer.from(bytes.subarray(ready))] : [];
      carryStart += ready;
    } else {
      carry.push(Buffer.from(read));
    }
    if (binary?.cutoff !== undefined) return;
    if (position - lineStart > GREP_MAX_LINE_BYTES) {
      // The whole lines not yielded yet, then the long one.
      const held = Buffer.concat(carry).subarray(0, lineStart - carryStart);
      yield* beforeLongLine(handle, buffer, position, binary, { held, start: carryStart });
      return;
    }
  }
  // The end of the file: the rest, unless ripgrep stops before it (a NUL in its last bytes).
  const rest = Buffer.concat(carry);
  const end = binary === undefined ? rest.length : (binary.cutoff ?? position) - carryStart;
  if (end > 0) yield rest.subarray(0, end).toString("utf8");
}

/**
 * A line longer than {@link GREP_MAX_LINE_BYTES} was read up to `position`: the file is refused,
 * unless ripgrep stops before that line (at a NUL further on; `held` are the whole lines before it,
 * from offset `start`), then the held lines before its cutoff are the rest of the file's text.
 */
async function* beforeLongLine(
  handle: FileHandle,
  buffer: Buffer,
  position: number,
  binary: RipgrepBinaryScan | undefined,
  lines: { readonly held: Buffer; readonly start: number },
): AsyncGenerator<string> {
  if (binary === undefined) throw new LineTooLongError();
  // Read on without holding the long line.
  const cutoff = await readToCutoff(handle, buffer, position, binary);
  const lineStart = lines.start + lines.held.length;
  if (cutoff === undefined || cutoff > lineStart) throw new LineTooLongError();
  if (cutoff > lines.start) yield lines.held.subarray(0, cutoff - lines.start).toString("utf8");
}

/** Reads on from `position` to ripgrep's cutoff, or to the end of the file (`undefined`: none). */
async function readToCutoff(
  handle: FileHandle,
  buffer: Buffer,
  position: number,
  binary: RipgrepBinaryScan,
): Promise<number | undefined> {
  for (let at = position; ; ) {
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, at);
    binary.take(buffer.subarray(0, bytesRead), bytesRead === 0);
    if (binary.cutoff !== undefined || bytesRead === 0) return binary.cutoff;
    at += bytesRead;
  }
}
