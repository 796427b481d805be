import { markChangedLines } from "./line-diff.js";

/** Lines added and removed between two versions of a text file, as `git diff --numstat` counts them. */
export interface LineCounts {
  readonly added: number;
  readonly removed: number;
}

const NEWLINE = 0x0a;
/** Bytes compared at once (natively) before the byte-by-byte finish. */
const BLOCK = 256;

/** Length of the common start of `a` and `b`. */
function commonPrefix(a: Buffer, b: Buffer): number {
  const limit = Math.min(a.length, b.length);
  let at = 0;
  while (at + BLOCK <= limit && a.compare(b, at, at + BLOCK, at, at + BLOCK) === 0) at += BLOCK;
  while (at < limit && a[at] === b[at]) at++;
  return at;
}

/** Length of the common end of `a` and `b`, at most `limit`. */
function commonSuffix(a: Buffer, b: Buffer, limit: number): number {
  let length = 0;
  while (
    length + BLOCK <= limit &&
    a.compare(b, b.length - length - BLOCK, b.length - length, a.length - length - BLOCK, a.length - length) === 0
  )
    length += BLOCK;
  while (length < limit && a[a.length - 1 - length] === b[b.length - 1 - length]) length++;
  return length;
}

/** Lines in `content` from `from` to `to`: its newlines, and one more for a last line without one. */
function countLines(content: Buffer, from: number, to: number): number {
  let lines = 0;
  let at = from;
  for (;;) {
    const newline = content.indexOf(NEWLINE, at);
    if (newline < 0 || newline >= to) break;
    lines++;
    at = newline + 1;
  }
  return at < to ? lines + 1 : lines;
}

/**
 * The common whole lines at the start and at the end of both files, in bytes, as a line diff
 * trims them: the start stops after the last newline the two share; the end starts where both
 * files start a line, without reaching into the start (a last line without a newline differs
 * from the same text with one, since the newline is part of the bytes compared).
 */
function commonLines(a: Buffer, b: Buffer): { prefix: number; suffix: number } {
  const shared = commonPrefix(a, b);
  const prefix = shared === 0 ? 0 : a.lastIndexOf(NEWLINE, shared - 1) + 1;
  let suffix = commonSuffix(a, b, Math.min(a.length, b.length) - prefix);
  if (suffix === 0) return { prefix, suffix };
  const [aStart, bStart] = [a.length - suffix, b.length - suffix];
  const lineStart = (content: Buffer, at: number) => at === prefix || content[at - 1] === NEWLINE;
  if (!lineStart(a, aStart) || !lineStart(b, bStart)) {
    // Inside the common end both files hold the same bytes: the first newline there starts a line in both.
    const newline = a.indexOf(NEWLINE, aStart);
    suffix = newline < 0 ? 0 : a.length - newline - 1;
  }
  return { prefix, suffix };
}

/** FNV-1a over the bytes of one line. */
function hashLine(content: Buffer, from: number, to: number): number {
  let hash = 0x811c9dc5;
  for (let at = from; at < to; at++) hash = Math.imul(hash ^ (content[at] as number), 0x01000193);
  return hash;
}

/**
 * Numbers the lines of two files (equal bytes, equal number; a line's bytes include its newline),
 * straight from the bytes: no text decoded, no string per line. An open-addressing table of line
 * hashes; equal hashes are confirmed byte for byte.
 */
class LineNumbering {
  private readonly slots: Int32Array;
  private readonly mask: number;
  private readonly hashes: Int32Array;
  private readonly sources: Uint8Array;
  private readonly starts: Int32Array;
  private readonly ends: Int32Array;
  count = 0;

  constructor(
    private readonly files: readonly [Buffer, Buffer],
    lines: number,
  ) {
    let size = 16;
    while (size < lines * 2) size *= 2;
    this.slots = new Int32Array(size).fill(-1);
    this.mask = size - 1;
    this.hashes = new Int32Array(lines);
    this.sources = new Uint8Array(lines);
    this.starts = new Int32Array(lines);
    this.ends = new Int32Array(lines);
  }

  /** The numbers of the lines of file `source` (0 or 1), `lines` of them. */
  number(source: 0 | 1, lines: number): Int32Array {
    const content = this.files[source];
    const ids = new Int32Array(lines);
    let at = 0;
    for (let line = 0; line < lines; line++) {
      const newline = content.indexOf(NEWLINE, at);
      const end = newline < 0 ? content.length : newline + 1;
      ids[line] = this.intern(source, at, end);
      at = end;
    }
    return ids;
  }

  private intern(source: 0 | 1, start: number, end: number): number {
    const hash = hashLine(this.files[source], start, end);
    for (let slot = hash & this.mask; ; slot = (slot + 1) & this.mask) {
      const id = this.slots[slot] as number;
      if (id < 0) {
        const created = this.count++;
        [this.hashes[created], this.sources[created], this.starts[created], this.ends[created]] = [hash, source, start, end];
        this.slots[slot] = created;
        return created;
      }
      if (this.hashes[id] === hash && this.sameBytes(id, source, start, end)) return id;
    }
  }

  private sameBytes(id: number, source: 0 | 1, start: number, end: number): boolean {
    const [otherStart, otherEnd] = [this.starts[id] as number, this.ends[id] as number];
    if (otherEnd - otherStart !== end - start) return false;
    const [content, other] = [this.files[source], this.files[this.sources[id] as 0 | 1]];
    for (let offset = 0; offset < end - start; offset++) if (content[start + offset] !== other[otherStart + offset]) return false;
    return true;
  }
}

function sum(flags: Uint8Array): number {
  let total = 0;
  for (let index = 0; index < flags.length; index++) total += flags[index] as number;
  return total;
}

/**
 * Lines added and removed between two text files, exactly what {@link diffLines} counts (git's
 * numstat), without its cost where it is not needed: when the files differ only by lines
 * inserted or deleted in one place (after the common start and end, one side has nothing left),
 * the answer is the other side's line count and no line is numbered; otherwise lines are
 * numbered from their bytes and diffed, and the changed groups are not slid (sliding never
 * changes how many lines changed).
 */
export function lineChangeCounts(before: Buffer, after: Buffer): LineCounts {
  if (before.equals(after)) return { added: 0, removed: 0 };
  const { prefix, suffix } = commonLines(before, after);
  const [beforeEnd, afterEnd] = [before.length - suffix, after.length - suffix];
  if (beforeEnd === prefix || afterEnd === prefix) {
    return { added: countLines(after, prefix, afterEnd), removed: countLines(before, prefix, beforeEnd) };
  }
  const [beforeLines, afterLines] = [countLines(before, 0, before.length), countLines(after, 0, after.length)];
  const numbering = new LineNumbering([before, after], beforeLines + afterLines);
  const a = numbering.number(0, beforeLines);
  const b = numbering.number(1, afterLines);
  const { removed, added } = markChangedLines(a, b, numbering.count);
  return { added: sum(added), removed: sum(removed) };
}
