import { PiecedBytes } from "./pieced-bytes.js";

/**
 * A file's content as the patch engine holds it: text (a patch's added file, an edit's result,
 * a reader without bytes), or the bytes read from disk. Bytes are patched as bytes: unchanged runs
 * of lines are copied from the bytes read, never decoded and encoded again, so a large change
 * neither makes a string of every file it touches nor re-encodes them, and bytes that are not
 * valid UTF-8 outside the changed lines are left exactly as they were. A patched file's new bytes
 * stay in pieces ({@link PiecedBytes}) until something needs them whole.
 */
export type FileContent = SourceContent | PiecedBytes;

/** A content a line document is parsed from and rendered to (see `parseLineDocument`): text, or bytes in one buffer. */
export type SourceContent = string | Buffer;

/** The content as text (bytes decoded as UTF-8). */
export function textOf(content: FileContent): string {
  return typeof content === "string" ? content : wholeBytes(content).toString("utf8");
}

/** The content as bytes (text encoded as UTF-8; bytes as they are; pieces joined). */
export function bytesOf(content: FileContent): Buffer {
  return typeof content === "string" ? Buffer.from(content) : wholeBytes(content);
}

/** The content as the commit takes it: text encoded as UTF-8, bytes and pieces as they are. */
export function writableOf(content: FileContent): Buffer | PiecedBytes {
  return typeof content === "string" ? Buffer.from(content) : content;
}

/** Bytes as one buffer (pieces joined). */
function wholeBytes(content: Buffer | PiecedBytes): Buffer {
  return content instanceof PiecedBytes ? content.bytes() : content;
}

/** True when two contents are the same file content (text compared as its UTF-8 bytes with bytes). */
export function sameFileContent(left: FileContent, right: FileContent): boolean {
  if (typeof left === "string" && typeof right === "string") return left === right;
  if (left instanceof PiecedBytes && typeof right !== "string") return left.equals(wholeBytes(right));
  if (right instanceof PiecedBytes && typeof left !== "string") return right.equals(wholeBytes(left));
  return bytesOf(left).equals(bytesOf(right));
}

/** How many lines the content has (a final newline does not start another one). */
export function countLines(content: FileContent): number {
  if (content instanceof PiecedBytes) return content.countLines();
  if (content.length === 0) return 0;
  let count = 0;
  if (typeof content === "string") {
    for (let index = content.indexOf("\n"); index !== -1; index = content.indexOf("\n", index + 1)) count++;
    return content.endsWith("\n") ? count : count + 1;
  }
  for (let index = content.indexOf(10); index !== -1; index = content.indexOf(10, index + 1)) count++;
  return content[content.length - 1] === 10 ? count : count + 1;
}
