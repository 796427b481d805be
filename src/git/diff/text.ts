/** Bytes git inspects for a NUL to call a file binary (`buffer_is_binary`). */
const BINARY_PROBE = 8000;

/**
 * Appended to a last line that has no newline, so that `"x"` at the end of a file and `"x\n"`
 * compare as different lines, as they do in git. Renderers strip it.
 */
export const NO_NEWLINE = "\u0000";

/** True for content git treats as binary: a NUL byte in the first 8000 bytes. */
export function isBinary(content: Buffer): boolean {
  return content.subarray(0, BINARY_PROBE).includes(0);
}

/** The lines of a text blob, without their newlines; a last line without one ends in {@link NO_NEWLINE}. */
export function splitLines(content: Buffer): string[] {
  if (content.length === 0) return [];
  const lines = content.toString("utf8").split("\n");
  const last = lines.length - 1;
  if (lines[last] === "") lines.pop();
  else lines[last] = `${lines[last]}${NO_NEWLINE}`;
  return lines;
}

/** A line as shown to the model: without the end-of-file marker. */
export function displayLine(line: string): string {
  return line.endsWith(NO_NEWLINE) ? line.slice(0, -1) : line;
}

/** Non-overlapping occurrences of `needle` in `haystack`, counted the way `git log -S` counts them. */
export function countOccurrences(haystack: Buffer, needle: Buffer): number {
  if (needle.length === 0) return 0;
  let count = 0;
  let at = haystack.indexOf(needle);
  while (at !== -1) {
    count++;
    at = haystack.indexOf(needle, at + needle.length);
  }
  return count;
}
