import { countOf } from "../../errors/count-of.js";

/**
 * A count of bytes in words, "1 byte" or "N bytes", for the tools' model-visible results: a
 * one-byte append, file or cut read "1 bytes".
 */
export function byteCount(bytes: number): string {
  return countOf(bytes, "byte");
}
