import { writev as writevCallback, writevSync } from "node:fs";
import { promisify } from "node:util";
import { PiecedBytes } from "./patch/pieced-bytes.js";

const writevDescriptor = promisify(writevCallback);

/** A new content as the transaction writes it: text, bytes, or a patched file's pieces. */
export type WritableContent = Uint8Array | string | PiecedBytes;

/**
 * The content as buffers to hand to `writev`: a patch's pieces as they are (views of the bytes
 * read and the new lines: no buffer of the whole file is made to write it), bytes as one, text
 * encoded once.
 */
function piecesOf(content: WritableContent): readonly Uint8Array[] {
  if (content instanceof PiecedBytes) return content.pieces;
  return [typeof content === "string" ? Buffer.from(content) : content];
}

/** The pieces left after the first `written` bytes of `pieces` (a short write's rest). */
function after(pieces: readonly Uint8Array[], written: number): Uint8Array[] {
  const rest: Uint8Array[] = [];
  let skip = written;
  for (const piece of pieces) {
    if (skip >= piece.byteLength) skip -= piece.byteLength;
    else {
      rest.push(skip === 0 ? piece : piece.subarray(skip));
      skip = 0;
    }
  }
  return rest;
}

/**
 * Writes `content` whole at `fd`'s offset, in one `writev` (libuv itself writes past IOV_MAX in
 * batches; a second call only after a short write).
 */
export function writeContentSync(fd: number, content: WritableContent): void {
  let pieces = piecesOf(content);
  while (pieces.length > 0) {
    const written = writevSync(fd, pieces as Uint8Array[]);
    // A regular file takes all but on a full disk, where the next call fails with ENOSPC.
    pieces = after(pieces, written);
  }
}

/** {@link writeContentSync} through the thread pool. */
export async function writeContent(fd: number, content: WritableContent): Promise<void> {
  let pieces = piecesOf(content);
  while (pieces.length > 0) {
    const { bytesWritten } = await writevDescriptor(fd, pieces as Uint8Array[]);
    pieces = after(pieces, bytesWritten);
  }
}

/** The content as one buffer (pieces joined), for a comparison or a digest after a failure. */
export function contentBytes(content: WritableContent): Uint8Array {
  if (content instanceof PiecedBytes) return content.bytes();
  return typeof content === "string" ? Buffer.from(content) : content;
}
