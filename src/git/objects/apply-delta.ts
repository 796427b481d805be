import { CatalogError } from "agent-tool-catalog";

function readSize(delta: Buffer, start: number): { readonly value: number; readonly next: number } {
  let value = 0;
  let shift = 0;
  let position = start;
  let byte: number;
  do {
    byte = delta[position++] ?? 0;
    value += (byte & 0x7f) * 2 ** shift;
    shift += 7;
  } while (byte & 0x80 && position < delta.length);
  return { value, next: position };
}

function corrupt(detail: string): CatalogError {
  return new CatalogError("corrupt_object", `A packed delta is corrupt: ${detail}.`);
}

/** Decodes a copy instruction's offset and size, whose present bytes the opcode's bits name. */
function copyInstruction(op: number, delta: Buffer, start: number): { offset: number; size: number; next: number } {
  let position = start;
  let offset = 0;
  let size = 0;
  for (let bit = 0; bit < 4; bit++) if (op & (1 << bit)) offset += (delta[position++] ?? 0) * 2 ** (8 * bit);
  for (let bit = 0; bit < 3; bit++) if (op & (0x10 << bit)) size += (delta[position++] ?? 0) * 2 ** (8 * bit);
  return { offset, size: size === 0 ? 0x10000 : size, next: position };
}

/**
 * Rebuilds an object from its delta base and a git delta (a header with both sizes, then copy
 * and insert instructions), as `git` writes them in packs.
 */
export function applyDelta(base: Buffer, delta: Buffer): Buffer {
  const source = readSize(delta, 0);
  if (source.value !== base.length) throw corrupt(`base has ${base.length} bytes, delta expects ${source.value}`);
  const target = readSize(delta, source.next);
  const output = Buffer.allocUnsafe(target.value);
  let position = target.next;
  let written = 0;
  while (position < delta.length) {
    const op = delta[position++] ?? 0;
    if (op & 0x80) {
      const { offset, size, next } = copyInstruction(op, delta, position);
      position = next;
      if (offset + size > base.length || written + size > output.length) throw corrupt("copy out of range");
      base.copy(output, written, offset, offset + size);
      written += size;
    } else if (op !== 0) {
      if (written + op > output.length || position + op > delta.length) throw corrupt("insert out of range");
      delta.copy(output, written, position, position + op);
      written += op;
      position += op;
    } else {
      throw corrupt("reserved instruction 0");
    }
  }
  if (written !== output.length) throw corrupt(`wrote ${written} of ${output.length} bytes`);
  return output;
}
