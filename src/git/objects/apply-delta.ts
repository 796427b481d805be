import { CatalogError } from "agent-tool-catalog";

function corrupt(detail: string): CatalogError {
  return new CatalogError("corrupt_object", `A packed delta is corrupt: ${detail}.`);
}

/** Copies below this many bytes are a JavaScript loop: `Buffer#copy` costs a view and a native call per copy. */
const SHORT_COPY = 64;

function copyBytes(from: Uint8Array, start: number, end: number, to: Uint8Array, at: number): void {
  if (end - start < SHORT_COPY) {
    for (let index = start; index < end; index++) to[at++] = from[index] as number;
  } else {
    to.set(from.subarray(start, end), at);
  }
}

/**
 * Rebuilds an object from its delta base and a git delta (a header with both sizes, then copy
 * and insert instructions), as `git` writes them in packs; the delta is the first `length`
 * bytes of `delta` (reused scratch). One plain loop, no object per instruction: a history walk
 * applies tens of thousands of small deltas.
 */
export function applyDelta(base: Buffer, delta: Uint8Array, length = delta.length): Buffer {
  let position = 0;
  let byte: number;
  let shift = 0;
  let sourceSize = 0;
  do {
    byte = delta[position++] ?? 0;
    sourceSize += (byte & 0x7f) * 2 ** shift;
    shift += 7;
  } while (byte & 0x80 && position < length);
  if (sourceSize !== base.length) throw corrupt(`base has ${base.length} bytes, delta expects ${sourceSize}`);
  let targetSize = 0;
  shift = 0;
  do {
    byte = delta[position++] ?? 0;
    targetSize += (byte & 0x7f) * 2 ** shift;
    shift += 7;
  } while (byte & 0x80 && position < length);
  const output = Buffer.allocUnsafe(targetSize);
  let written = 0;
  while (position < length) {
    const op = delta[position++] as number;
    if (op & 0x80) {
      // A copy: the opcode's bits name which offset and size bytes follow.
      let offset = 0;
      let size = 0;
      if (op & 0x01) offset = delta[position++] ?? 0;
      if (op & 0x02) offset += (delta[position++] ?? 0) * 0x100;
      if (op & 0x04) offset += (delta[position++] ?? 0) * 0x10000;
      if (op & 0x08) offset += (delta[position++] ?? 0) * 0x1000000;
      if (op & 0x10) size = delta[position++] ?? 0;
      if (op & 0x20) size += (delta[position++] ?? 0) * 0x100;
      if (op & 0x40) size += (delta[position++] ?? 0) * 0x10000;
      if (size === 0) size = 0x10000;
      if (offset + size > base.length || written + size > targetSize) throw corrupt("copy out of range");
      copyBytes(base, offset, offset + size, output, written);
      written += size;
    } else if (op !== 0) {
      if (written + op > targetSize || position + op > length) throw corrupt("insert out of range");
      copyBytes(delta, position, position + op, output, written);
      written += op;
      position += op;
    } else {
      throw corrupt("reserved instruction 0");
    }
  }
  if (written !== targetSize) throw corrupt(`wrote ${written} of ${targetSize} bytes`);
  return output;
}
