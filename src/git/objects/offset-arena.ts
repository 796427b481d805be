/**
 * Shared storage for the entry tables of parsed trees. A table of its own per tree (an
 * `Int32Array`) is an ArrayBuffer, a backing store outside the heap and an extension every
 * young-generation collection sweeps: after a whole-history pickaxe search the cache held ~33,000
 * of them (8 MiB), and refilling the cache after it was cleared paid for them again. Tables are
 * instead copied, at their exact length, into chunks of one shared `Int32Array`; a tree keeps the
 * chunk and where its table starts (two fields, no object of its own).
 */
export class OffsetArena {
  /** The chunk that holds the table {@link store} placed last. */
  lastSlots: Int32Array;
  private chunk: Int32Array;
  private used = 0;
  /** Where tables are located before their length is known (grown when a tree needs more). */
  private scratch = new Int32Array(3 * 1024);

  /** @param chunkSlots - a chunk's size in 32-bit slots: what one live tree can keep from being collected */
  constructor(private readonly chunkSlots = 16 * 1024) {
    this.chunk = new Int32Array(chunkSlots);
    this.lastSlots = this.chunk;
  }

  /** A scratch table of at least `length` slots, for the parse that precedes {@link store}. */
  scratchTable(length: number): Int32Array {
    if (this.scratch.length < length) this.scratch = new Int32Array(Math.max(length, 2 * this.scratch.length));
    return this.scratch;
  }

  /**
   * Copies the first `length` slots of `table` into the arena and returns where they start in
   * {@link lastSlots}. A table over a quarter of a chunk (a directory of over ~1,300 entries at the
   * default size) gets an array of its own, so that no chunk is mostly wasted.
   */
  store(table: Int32Array, length: number): number {
    if (length > this.chunkSlots / 4) {
      this.lastSlots = table.slice(0, length);
      return 0;
    }
    if (this.used + length > this.chunkSlots) {
      this.chunk = new Int32Array(this.chunkSlots);
      this.used = 0;
    }
    const start = this.used;
    this.chunk.set(table.subarray(0, length), start);
    this.used += length;
    this.lastSlots = this.chunk;
    return start;
  }
}
