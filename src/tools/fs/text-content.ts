import { isUtf8 } from "node:buffer";

/** How the lines of a text end. */
export type LineEnding = "lf" | "crlf" | "cr" | "mixed" | "none";

const decoder = new TextDecoder("utf-8", { fatal: true });

/**
 * True when the bytes look binary: a NUL byte, or not valid UTF-8, in the first 8 KiB. A
 * multi-byte character cut by the sample's end is not a sign of binary data.
 *
 * A sample that is valid UTF-8 as it is (nearly every text file) is validated without decoding
 * (`isUtf8`): a 500-file patch asks this of every file it reads, and the decoder made a string
 * of each sample only to throw it away. Only the others go through the streaming decoder, which
 * tells a cut character from invalid bytes.
 */
export function looksBinary(bytes: Uint8Array): boolean {
  const sample = bytes.subarray(0, 8192);
  if (sample.includes(0)) return true;
  if (isUtf8(sample)) return false;
  try {
    decoder.decode(sample, { stream: true });
    return false;
  } catch {
    return true;
  } finally {
    // Reset the streaming decoder's state.
    try {
      decoder.decode();
    } catch {
      // A truncated multi-byte sequence at the sample's end is not a sign of binary data.
    }
  }
}

/** Counts line endings and names the kind. */
export function detectLineEnding(text: string): { kind: LineEnding; lf: number; crlf: number; cr: number } {
  let lf = 0;
  let crlf = 0;
  let cr = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code === 13) {
      if (text.charCodeAt(index + 1) === 10) {
        crlf++;
        index++;
      } else cr++;
    } else if (code === 10) lf++;
  }
  const kinds = [lf > 0, crlf > 0, cr > 0].filter(Boolean).length;
  const kind: LineEnding = kinds === 0 ? "none" : kinds > 1 ? "mixed" : lf > 0 ? "lf" : crlf > 0 ? "crlf" : "cr";
  return { kind, lf, crlf, cr };
}

/** Splits text into lines without their endings (a final ending does not make an empty line). */
export function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split(/\r\n|\n|\r/);
  if (/(\r\n|\n|\r)$/.test(text)) lines.pop();
  return lines;
}
