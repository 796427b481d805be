/**
 * Shared storage for the raw ids of trees read by a text id (a commit's tree, a parent's root):
 * copied 20 bytes at a time into chunks of one shared byte array instead of a `Uint8Array` each
 * (an object and an ArrayBuffer per cached root tree, one per commit of a history walk).
 */
export class IdArena {
  /** The chunk that holds the id {@link copy} placed last. */
  lastBytes: Uint8Array;
  private used = 0;

  /** @param chunkBytes - a chunk's size: what one live id can keep from being collected */
  constructor(private readonly chunkBytes = 20 * 1024) {
    this.lastBytes = new Uint8Array(chunkBytes);
  }

  /** Copies the 20 bytes at `at` in `source` and returns where they start in {@link lastBytes}. */
  copy(source: Uint8Array, at: number): number {
    if (this.used + 20 > this.chunkBytes) {
      this.lastBytes = new Uint8Array(this.chunkBytes);
      this.used = 0;
    }
    const start = this.used;
    this.lastBytes.set(source.subarray(at, at + 20), start);
    this.used += 20;
    return start;
  }
}
