import { countOf } from "../errors/count-of.js";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The UTF-8 length of `text`, without encoding it (lone surrogates count as U+FFFD, 3 bytes). */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && isLowSurrogate(text.charCodeAt(index + 1))) {
      bytes += 4;
      index++;
    } else bytes += 3;
  }
  return bytes;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/**
 * Cuts `text` over `maxBytes` UTF-8 bytes to its head (about three quarters) and tail, with a
 * marker saying how much was cut, so the model knows the output is incomplete. Cuts never split
 * a character.
 */
export function cutToBytes(text: string, maxBytes: number): string {
  const total = utf8Length(text);
  if (total <= maxBytes) return text;
  const bytes = encoder.encode(text);
  const headBytes = Math.floor(maxBytes * 0.75);
  const tailBytes = maxBytes - headBytes;
  const head = decoder.decode(bytes.subarray(0, boundaryAtOrBefore(bytes, headBytes)));
  const tail = decoder.decode(bytes.subarray(boundaryAtOrAfter(bytes, total - tailBytes)));
  const marker = `\n[... output cut: ${countOf(total, "byte")} in all, over the limit of ${maxBytes}; ${countOf(total - utf8Length(head) - utf8Length(tail), "byte")} in the middle left out ...]\n`;
  return head + marker + tail;
}

// A UTF-8 continuation byte is 10xxxxxx: move off it to the start of a character.
function boundaryAtOrBefore(bytes: Uint8Array, index: number): number {
  let at = index;
  while (at > 0 && ((bytes[at] ?? 0) & 0xc0) === 0x80) at--;
  return at;
}

function boundaryAtOrAfter(bytes: Uint8Array, index: number): number {
  let at = index;
  while (at < bytes.length && ((bytes[at] ?? 0) & 0xc0) === 0x80) at++;
  return at;
}
