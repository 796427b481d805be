import type { FileHandle } from "node:fs/promises";
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
 * without), read `chunkBytes` at a time: a line crossing a read border is carried into the next
 * piece whole, and a split at `\n` never splits a UTF-8 sequence. Nothing is yielded for a binary
 * file (judged on its first bytes, as a file read whole is), unless `end` is given: then the caller
 * has judged it, and only the bytes before `end` (a line start) are read.
 */
export async function* readLinePieces(
  handle: FileHandle,
  chunkBytes = GREP_CHUNK_BYTES,
  end: number | undefined = undefined,
): AsyncGenerator<string> {
  const buffer = Buffer.allocUnsafe(chunkBytes);
  // The start of a line not yet ended, in copies (`buffer` is reused by the next read); it holds
  // no `\n`, so only new bytes are searched for one and a long line costs linear time.
  let carry: Buffer[] = [];
  let carried = 0;
  let position = 0;
  for (;;) {
    const length = end === undefined ? chunkBytes : Math.min(chunkBytes, end - position);
    if (length <= 0) break;
    const { bytesRead } = await handle.read(buffer, 0, length, position);
    if (bytesRead === 0) break;
    const read = buffer.subarray(0, bytesRead);
    if (position === 0 && end === undefined && looksBinary(read)) return;
    position += bytesRead;
    const lineEnd = read.lastIndexOf(10);
    if (lineEnd !== -1) {
      yield Buffer.concat([...carry, read.subarray(0, lineEnd + 1)]).toString("utf8");
      carry = [];
      carried = 0;
    }
    const rest = read.subarray(lineEnd + 1);
    if (rest.length > 0) {
      carry.push(Buffer.from(rest));
      carried += rest.length;
      if (carried > GREP_MAX_LINE_BYTES) throw new LineTooLongError();
    }
  }
  if (carried > 0) yield Buffer.concat(carry).toString("utf8");
}
