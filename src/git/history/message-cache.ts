import type { CommitGraph } from "../objects/commit-graph.js";

/** ASCII letters to lower case, other bytes as they are. */
export const ASCII_LOWER = Uint8Array.from({ length: 256 }, (_, byte) => (byte >= 0x41 && byte <= 0x5a ? byte + 32 : byte));

/** Not looked at yet (the commit's object must be read). */
const UNKNOWN = -1;
/** Not kept: the message has non-ASCII bytes, so only decoding it answers a case-insensitive search. */
const NOT_ASCII = -2;

/** Bytes per position of the offset tables (start and end, 32 bits each). */
const TABLE_BYTES = 8;

/**
 * The messages of commit-graph commits, ASCII-folded to lower case, in one buffer with a start and
 * an end offset per graph position: a whole-history message search reads each commit object once,
 * then answers later searches from here without inflating anything (git itself inflates every
 * commit on every `git log --grep`). Only ASCII messages are kept (folding ASCII letters is
 * exactly `toLowerCase` for them); a non-ASCII one is marked so the search decodes it.
 *
 * Bounded: the offset tables (8 bytes per graph commit) and the message bytes together never pass
 * the budget; past it, messages are no longer added (those kept stay) and the search reads the
 * rest as before. Keyed by the commit-graph it was filled from: a new graph (after a `git gc` or
 * `git commit-graph write`) numbers commits differently, so the cache starts over; commits
 * outside the graph (newer than it) are never kept here.
 */
export class CommitMessageCache {
  private graph: CommitGraph | undefined;
  private starts = new Int32Array(0);
  private ends = new Int32Array(0);
  private bytes: Buffer = Buffer.alloc(0);
  private used = 0;

  constructor(private readonly budget: number) {}

  /** Bytes held: the offset tables and the message buffer's capacity. */
  get weight(): number {
    return this.starts.length * TABLE_BYTES + this.bytes.length;
  }

  /** The tables for `graph`, (re)made when the cache was filled from another graph; false when they do not fit the budget. */
  private tablesFor(graph: CommitGraph): boolean {
    if (this.graph === graph) return true;
    if (graph.count * TABLE_BYTES > this.budget / 2) return false;
    this.graph = graph;
    this.starts = new Int32Array(graph.count).fill(UNKNOWN);
    this.ends = new Int32Array(graph.count);
    this.bytes = Buffer.alloc(Math.min(64 * 1024, Math.max(0, this.budget - graph.count * TABLE_BYTES)));
    this.used = 0;
    return true;
  }

  /**
   * Whether the kept message of the commit at `position` of `graph` contains `query` (lower-case
   * ASCII bytes), ASCII case ignored: true or false when the message is kept, `undefined` when it
   * is not (not read yet, not ASCII, or from another graph).
   */
  matches(graph: CommitGraph, position: number, query: Uint8Array): boolean | undefined {
    if (this.graph !== graph) return undefined;
    const start = this.starts[position] as number;
    if (start < 0) return undefined;
    return includesBytes(this.bytes, start, this.ends[position] as number, query);
  }

  /** Whether the commit's message is known to have non-ASCII bytes. */
  isNotAscii(graph: CommitGraph, position: number): boolean {
    return this.graph === graph && this.starts[position] === NOT_ASCII;
  }

  /**
   * Keeps the message of the commit at `position` of `graph`: bytes `from` to the end of its
   * stored object `content`. Returns whether it is ASCII (whether it was, or would have been, kept).
   */
  keep(graph: CommitGraph, position: number, content: Uint8Array, from: number): boolean {
    const ascii = isAscii(content, from);
    if (!this.tablesFor(graph) || this.starts[position] !== UNKNOWN) return ascii;
    if (!ascii) {
      this.starts[position] = NOT_ASCII;
      return false;
    }
    const length = content.length - from;
    if (!this.reserve(length)) return true;
    const bytes = this.bytes;
    let at = this.used;
    for (let index = from; index < content.length; index++) bytes[at++] = ASCII_LOWER[content[index] as number] as number;
    this.starts[position] = this.used;
    this.ends[position] = at;
    this.used = at;
    return true;
  }

  /** Room for `length` more bytes, growing the buffer within the budget; false when it would pass it. */
  private reserve(length: number): boolean {
    const needed = this.used + length;
    if (needed <= this.bytes.length) return true;
    const room = this.budget - this.starts.length * TABLE_BYTES;
    if (needed > room) return false;
    const grown = Buffer.alloc(Math.min(room, Math.max(needed, this.bytes.length * 2)));
    this.bytes.copy(grown, 0, 0, this.used);
    this.bytes = grown;
    return true;
  }

  /** Forgets everything. */
  clear(): void {
    this.graph = undefined;
    this.starts = new Int32Array(0);
    this.ends = new Int32Array(0);
    this.bytes = Buffer.alloc(0);
    this.used = 0;
  }
}

/** Whether the bytes of `content` from `from` on are all ASCII. */
export function isAscii(content: Uint8Array, from: number): boolean {
  for (let at = from; at < content.length; at++) if ((content[at] as number) >= 0x80) return false;
  return true;
}

/** Whether `needle` occurs in `haystack` between `start` and `end` (byte for byte). */
function includesBytes(haystack: Uint8Array, start: number, end: number, needle: Uint8Array): boolean {
  const first = needle[0] as number;
  const last = end - needle.length;
  for (let at = start; at <= last; at++) {
    if (haystack[at] !== first) continue;
    let offset = 1;
    while (offset < needle.length && haystack[at + offset] === needle[offset]) offset++;
    if (offset === needle.length) return true;
  }
  return false;
}
