/** ripgrep's line buffer: 64 KiB at first (grep-searcher's `DEFAULT_BUFFER_CAPACITY`). */
const RIPGREP_BUFFER_BYTES = 64 * 1024;

/**
 * Where ripgrep stops searching a file it found while walking a directory, worked out from the
 * file's bytes as they are read (once, in pieces of any size: the search reads the same pieces).
 * ripgrep quits at the first NUL byte (binary file), and drops the lines of the buffer fill in
 * which it read that byte: it prints only the lines of earlier fills. So the cutoff is the byte
 * offset where that fill's unsearched data begins (a line start; 0 when the NUL is in the first
 * fill), found by replaying ripgrep's reads: its BOM sniffing reads 3 bytes first, then each fill
 * keeps the unfinished line, reads into the rest of the buffer until a read holds a `\n`, and grows
 * the buffer when a line fills it.
 */
export class RipgrepBinaryScan {
  private capacity = RIPGREP_BUFFER_BYTES;
  /** The file offset where the fill being read began. */
  private fillStart = 0;
  /** Bytes the fill being read still asks for; 0 between fills. */
  private fillWanted = 0;
  /** Bytes the fill being read has. */
  private fillBytes = 0;
  /** The file offset of the last `\n` in the fill being read, or -1. */
  private fillNewline = -1;
  /** Bytes of the unfinished line held at the buffer's start when the fill being read began. */
  private carried = 0;
  private first = true;
  /** The file offset of the next byte {@link take} expects. */
  private offset = 0;
  private cutoffAt: number | undefined;

  /** Where ripgrep stops (a line start), once a NUL byte was read; `undefined` while none was. */
  get cutoff(): number | undefined {
    return this.cutoffAt;
  }

  /**
   * Every byte before this offset (a line start) is searched by ripgrep, whatever the rest of the
   * file holds: the lines of the fills read whole, or the cutoff once it is known.
   */
  get searchedBefore(): number {
    return this.cutoffAt ?? this.fillStart - this.carried;
  }

  /** Takes the file's next bytes (`atEnd`: there are no more); stops looking once a NUL was seen. */
  take(bytes: Uint8Array, atEnd: boolean): void {
    let at = 0;
    while (this.cutoffAt === undefined && at < bytes.length) {
      if (this.fillWanted === 0) this.beginFill();
      const part = bytes.subarray(at, at + this.fillWanted);
      if (part.includes(0)) {
        this.cutoffAt = this.fillStart - this.carried;
        break;
      }
      const newline = part.lastIndexOf(10);
      if (newline !== -1) this.fillNewline = this.offset + at + newline;
      at += part.length;
      this.fillBytes += part.length;
      this.fillWanted -= part.length;
      if (this.fillWanted === 0) this.endFill();
    }
    this.offset += bytes.length;
    // A read at the end of the file gives fewer bytes than asked; the one after it, none.
    if (atEnd && this.cutoffAt === undefined && this.fillBytes > 0) this.endFill();
  }

  private beginFill(): void {
    if (this.carried >= this.capacity) this.capacity *= 3;
    this.fillWanted = this.first ? 3 : this.capacity - this.carried;
    this.first = false;
    this.fillBytes = 0;
    this.fillNewline = -1;
  }

  private endFill(): void {
    const end = this.fillStart + this.fillBytes;
    this.carried = this.fillNewline === -1 ? this.carried + this.fillBytes : end - this.fillNewline - 1;
    this.fillStart = end;
    this.fillWanted = 0;
    this.fillBytes = 0;
  }
}

/** Where ripgrep stops searching `bytes`, a whole file found in a directory; `undefined` when it searches it whole. */
export function ripgrepBinaryCutoff(bytes: Uint8Array): number | undefined {
  const scan = new RipgrepBinaryScan();
  scan.take(bytes, true);
  return scan.cutoff;
}
