/** ripgrep's line buffer: 64 KiB at first (grep-searcher's `DEFAULT_BUFFER_CAPACITY`). */
const RIPGREP_BUFFER_BYTES = 64 * 1024;

/**
 * Where ripgrep stops searching a file it found while walking a directory, or `undefined` when it
 * searches it whole. ripgrep quits at the first NUL byte (binary file), and drops the lines of the
 * buffer fill in which it read that byte: it prints only the lines of earlier fills. So the answer is
 * the byte offset where that fill's unsearched data begins (a line start; 0 when the NUL is in the
 * first fill), found by replaying ripgrep's reads: its BOM sniffing reads 3 bytes first, then each
 * fill keeps the unfinished line, reads into the rest of the buffer until a read holds a `\n`, and
 * grows the buffer when a line fills it.
 */
export async function ripgrepBinaryCutoff(
  read: (position: number, length: number) => Promise<Buffer>,
): Promise<number | undefined> {
  let capacity = RIPGREP_BUFFER_BYTES;
  let position = 0;
  // Bytes of the unfinished line held at the buffer's start.
  let carried = 0;
  let first = true;
  for (;;) {
    if (carried >= capacity) capacity *= 3;
    const bytes = await read(position, first ? 3 : capacity - carried);
    first = false;
    if (bytes.length === 0) return undefined;
    if (bytes.includes(0)) return position - carried;
    position += bytes.length;
    const end = bytes.lastIndexOf(10);
    carried = end === -1 ? carried + bytes.length : bytes.length - end - 1;
  }
}
