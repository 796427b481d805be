/**
 * A patched file's new bytes left as the pieces they are made of: runs of the bytes read (views,
 * no copy) and the encoded new lines between them. A multi-file patch hands these to the commit,
 * which writes each file with `writev` from its pieces, hashes them through one reused buffer and
 * compares them with the old bytes piece by piece: no buffer of the whole new content is made per
 * file unless something asks for one ({@link PiecedBytes.bytes}: undo, the engine patching the
 * same file twice). On this machine, a VM where a page fault costs about 20 us, a joined buffer
 * per file was about 945 page faults of a 509-file patch (5 MB of new memory touched once).
 *
 * The views keep the buffer read alive; that buffer is the change's old content, which the commit
 * and the undo journal hold anyway. Nothing may write into it afterwards (nothing does: reads
 * make a new buffer per file).
 */
export class PiecedBytes {
  /** The pieces, in order (none empty). */
  readonly pieces: readonly Buffer[];
  /** The total length in bytes. */
  readonly byteLength: number;
  #joined: Buffer | undefined;

  constructor(pieces: readonly Buffer[]) {
    const kept = pieces.filter((piece) => piece.byteLength > 0);
    this.pieces = kept;
    let size = 0;
    for (const piece of kept) size += piece.byteLength;
    this.byteLength = size;
  }

  /** The bytes as one buffer, made on first use and kept. */
  bytes(): Buffer {
    this.#joined ??= this.pieces.length === 1 ? (this.pieces[0] as Buffer) : Buffer.concat(this.pieces, this.byteLength);
    return this.#joined;
  }

  /**
   * The bytes in one buffer for a use that ends before the next call: the joined buffer when
   * made, the only piece, or a copy into a buffer shared by every `PiecedBytes` and reused (its
   * pages touched once per process, not once per file). Never keep the result.
   */
  transient(): Buffer {
    if (this.#joined !== undefined) return this.#joined;
    if (this.pieces.length === 1) return this.pieces[0] as Buffer;
    // Past SCRATCH_KEEP a content gets a buffer of its own, not kept.
    if (this.byteLength > SCRATCH_KEEP) return Buffer.concat(this.pieces, this.byteLength);
    if (scratch === undefined || scratch.byteLength < this.byteLength) {
      const grown = Math.min(SCRATCH_KEEP, (scratch?.byteLength ?? SCRATCH_FIRST / 2) * 2);
      scratch = Buffer.allocUnsafeSlow(Math.max(this.byteLength, grown));
    }
    let at = 0;
    for (const piece of this.pieces) at += piece.copy(scratch, at);
    return scratch.subarray(0, at);
  }

  /** True when `other` holds exactly these bytes (compared piece by piece, nothing joined). */
  equals(other: Uint8Array): boolean {
    if (other.byteLength !== this.byteLength) return false;
    const view = Buffer.isBuffer(other) ? other : Buffer.from(other.buffer, other.byteOffset, other.byteLength);
    let at = 0;
    for (const piece of this.pieces) {
      if (view.compare(piece, 0, piece.byteLength, at, at + piece.byteLength) !== 0) return false;
      at += piece.byteLength;
    }
    return true;
  }

  /** How many lines the bytes have (a final newline does not start another one). */
  countLines(): number {
    if (this.byteLength === 0) return 0;
    let count = 0;
    for (const piece of this.pieces) {
      for (let index = piece.indexOf(10); index !== -1; index = piece.indexOf(10, index + 1)) count++;
    }
    const last = this.pieces.at(-1) as Buffer;
    return last[last.byteLength - 1] === 10 ? count : count + 1;
  }
}

/** The largest shared buffer {@link PiecedBytes.transient} keeps between calls (larger contents get one of their own). */
const SCRATCH_KEEP = 4 * 1024 * 1024;

/** The shared buffer's first size: most source files fit. */
const SCRATCH_FIRST = 64 * 1024;

/** Made on first use (a process that patches nothing allocates none). */
let scratch: Buffer | undefined;
