/**
 * The last `capacity` bytes a process printed, with absolute offsets: a reader keeps its own
 * cursor and learns how much it missed when the buffer moved past it. Memory stays bounded
 * whatever the process prints.
 */
export class OutputBuffer {
  private chunks: Buffer[] = [];
  private size = 0;
  private written = 0;
  private readonly capacity: number;

  constructor(capacity: number) {
    this.capacity = capacity;
  }

  /** Bytes written since the start, kept or not. */
  get end(): number {
    return this.written;
  }

  /** The offset of the oldest byte kept. */
  get start(): number {
    return this.written - this.size;
  }

  /** Appends output, dropping the oldest bytes over capacity. */
  push(chunk: Buffer): void {
    const kept = chunk.length > this.capacity ? chunk.subarray(chunk.length - this.capacity) : chunk;
    this.chunks.push(kept);
    this.size += kept.length;
    this.written += chunk.length;
    while (this.size > this.capacity) {
      const first = this.chunks[0] as Buffer;
      const over = this.size - this.capacity;
      if (first.length <= over) {
        this.chunks.shift();
        this.size -= first.length;
      } else {
        this.chunks[0] = first.subarray(over);
        this.size -= over;
      }
    }
  }

  /** The output from `from` to the end; `dropped` counts bytes the buffer no longer holds. */
  readFrom(from: number): { readonly text: string; readonly dropped: number; readonly next: number } {
    const startAt = Math.max(from, this.start);
    const dropped = startAt - from;
    const all = Buffer.concat(this.chunks);
    return { text: all.subarray(startAt - this.start).toString("utf8"), dropped: Math.max(0, dropped), next: this.written };
  }
}
