import { transportOverflowError } from "./transport-overflow.js";

/**
 * Splits a byte stream into newline-terminated lines, holding at most `maxLineBytes` of an
 * unfinished line. The SDK's `ReadBuffer` concatenates its whole buffer with every chunk, which
 * is quadratic: a server writing one endless line in pipe-sized chunks kept the host copying
 * gigabytes for seconds before the size limit tripped, so the request timed out first and an
 * oversized answer was reported as `mcp_timeout`. Here each chunk is kept as it came and joined
 * once, when its line ends; only the new chunk is searched for the newline.
 */
export class LineFramer {
  private pending: Buffer[] = [];
  private pendingBytes = 0;

  constructor(private readonly maxLineBytes: number) {}

  /**
   * Adds a chunk and returns the lines it completed (without `\n` and a trailing `\r`).
   * Throws when an unfinished line grows over the limit; the partial line is dropped then.
   */
  push(chunk: Buffer): string[] {
    const lines: string[] = [];
    let rest = chunk;
    for (;;) {
      const end = rest.indexOf(10);
      if (end === -1) break;
      if (this.pendingBytes + end > this.maxLineBytes) this.overflow();
      const line = this.pending.length === 0 ? rest.subarray(0, end) : Buffer.concat([...this.pending, rest.subarray(0, end)]);
      this.pending = [];
      this.pendingBytes = 0;
      lines.push(line.toString("utf8").replace(/\r$/, ""));
      rest = rest.subarray(end + 1);
    }
    if (rest.length > 0) {
      if (this.pendingBytes + rest.length > this.maxLineBytes) this.overflow();
      this.pending.push(rest);
      this.pendingBytes += rest.length;
    }
    return lines;
  }

  /** Forgets the unfinished line. */
  clear(): void {
    this.pending = [];
    this.pendingBytes = 0;
  }

  private overflow(): never {
    this.clear();
    throw transportOverflowError(this.maxLineBytes);
  }
}
