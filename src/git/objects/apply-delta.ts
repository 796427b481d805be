import { CatalogError } from "../../errors/catalog-error.js";
import { countOf } from "../../errors/count-of.js";
import { MAX_OBJECT_BYTES } from "./object-limits.js";

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
 * Where the instruction reader is in the delta being applied. Module state rather than a returned
 * pair, so reading an instruction allocates nothing ({@link applyDelta} is synchronous and never
 * re-entered).
 */
let cursor = 0;
/** The offset of the copy instruction read last. */
let copyOffset = 0;

/** A size of the delta's header (7 bits a byte, least significant first) at {@link cursor}. */
function readSize(delta: Uint8Array, length: number): number {
  let value = 0;
  // 2 ** shift as a running product: a variable `**` calls the C library's pow, even optimized.
  let scale = 1;
  let byte: number;
  do {
    byte = delta[cursor++] ?? 0;
    value += (byte & 0x7f) * scale;
    scale *= 128;
  } while (byte & 0x80 && cursor < length);
  return value;
}

/** A copy instruction's operands after opcode `op`: its offset into {@link copyOffset}, its size returned. */
function readCopy(delta: Uint8Array, op: number): number {
  // The opcode's bits name which offset and size bytes follow.
  let offset = 0;
  let size = 0;
  if (op & 0x01) offset = delta[cursor++] ?? 0;
  if (op & 0x02) offset += (delta[cursor++] ?? 0) * 0x100;
  if (op & 0x04) offset += (delta[cursor++] ?? 0) * 0x10000;
  if (op & 0x08) offset += (delta[cursor++] ?? 0) * 0x1000000;
  if (op & 0x10) size = delta[cursor++] ?? 0;
  if (op & 0x20) size += (delta[cursor++] ?? 0) * 0x100;
  if (op & 0x40) size += (delta[cursor++] ?? 0) * 0x10000;
  copyOffset = offset;
  return size === 0 ? 0x10000 : size;
}

/** The size of the object a delta builds (its header's second number), without building it. */
export function deltaTargetSize(delta: Uint8Array, length = delta.length): number {
  cursor = 0;
  readSize(delta, length);
  return readSize(delta, length);
}

/**
 * Rebuilds an object from its delta base and a git delta (a header with both sizes, then copy
 * and insert instructions), as `git` writes them in packs; the delta is the first `length`
 * bytes of `delta` (reused scratch). One plain loop, no object per instruction: a history walk
 * applies tens of thousands of small deltas. The result gets memory of its own, or, from
 * `scratch`, a buffer of at least its size that the caller reuses (asked for only once the
 * header's sizes are checked, so a lying header allocates nothing).
 */
export function applyDelta(base: Buffer, delta: Uint8Array, length = delta.length, scratch?: (size: number) => Buffer): Buffer {
  cursor = 0;
  const sourceSize = readSize(delta, length);
  if (sourceSize !== base.length) throw corrupt(`base has ${countOf(base.length, "byte")}, delta expects ${sourceSize}`);
  const targetSize = readSize(delta, length);
  // The header is the repository author's number: bounded before it is allocated (a 30-byte delta can claim 2^50).
  if (targetSize > MAX_OBJECT_BYTES) {
    throw new CatalogError(
      "too_large",
      `A packed delta builds a ${targetSize}-byte object; the git tools read objects up to ${MAX_OBJECT_BYTES} bytes.`,
    );
  }
  // Its own memory, not a slice of node's shared 8 KiB pool: caches keep the object, and a small one
  // kept in a pool slab held the whole slab (and whatever else was cut from it) under its own weight.
  const output = scratch === undefined ? Buffer.allocUnsafeSlow(targetSize) : scratch(targetSize).subarray(0, targetSize);
  let written = 0;
  while (cursor < length) {
    const op = delta[cursor++] as number;
    if (op & 0x80) {
      const size = readCopy(delta, op);
      if (copyOffset + size > base.length || written + size > targetSize) throw corrupt("copy out of range");
      copyBytes(base, copyOffset, copyOffset + size, output, written);
      written += size;
    } else if (op !== 0) {
      if (written + op > targetSize || cursor + op > length) throw corrupt("insert out of range");
      copyBytes(delta, cursor, cursor + op, output, written);
      written += op;
      cursor += op;
    } else {
      throw corrupt("reserved instruction 0");
    }
  }
  if (written !== targetSize) throw corrupt(`wrote ${written} of ${countOf(targetSize, "byte")}`);
  return output;
}
