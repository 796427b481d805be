import * as fs from "node:fs";

/**
 * Host paths as strings that keep every byte. Linux names are bytes; Node decodes them as UTF-8
 * and turns a byte that is not part of valid UTF-8 into U+FFFD, a path that names nothing (or
 * another entry, one truly named with U+FFFD). The sandbox's host side must name every entry it
 * protects, so here such a byte `b` becomes the lone surrogate U+DC00 + `b` (as Python's
 * `surrogateescape`): no valid UTF-8 name decodes to a lone surrogate, so the mapping is one to
 * one, and `path.join` and comparisons work on such strings as on any other. The functions below
 * are the `node:fs` ones the sandbox's git code uses, taking and returning such strings; bwrap
 * gets them back as bytes (see {@link bytesOfPath}).
 */

/** A lone low surrogate of the escaped range: an escaped byte 0x80-0xFF. */
const ESCAPED_BYTE = /(?<![\uD800-\uDBFF])[\uDC80-\uDCFF]/;

/** The name or path `bytes` as a string, with every byte that is not part of valid UTF-8 escaped (see above). */
export function pathFromBytes(bytes: Uint8Array): string {
  const buffer = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const text = buffer.toString("utf8");
  if (!text.includes("\uFFFD")) return text;
  let out = "";
  let index = 0;
  while (index < buffer.length) {
    const length = validSequenceLength(buffer, index);
    if (length === 0) {
      out += String.fromCharCode(0xdc00 + (buffer[index] as number));
      index++;
    } else {
      out += buffer.toString("utf8", index, index + length);
      index += length;
    }
  }
  return out;
}

/** The length of the valid UTF-8 sequence starting at `index`, or 0 when the byte there starts none. */
function validSequenceLength(bytes: Buffer, index: number): number {
  const first = bytes[index] as number;
  if (first < 0x80) return 1;
  const continuation = (offset: number, low = 0x80, high = 0xbf) => {
    const byte = bytes[index + offset];
    return byte !== undefined && byte >= low && byte <= high;
  };
  // The ranges of the Unicode standard's table 3-7 (no overlong forms, no surrogates, none past U+10FFFF).
  if (first >= 0xc2 && first <= 0xdf) return continuation(1) ? 2 : 0;
  if (first >= 0xe0 && first <= 0xef) {
    const low = first === 0xe0 ? 0xa0 : 0x80;
    const high = first === 0xed ? 0x9f : 0xbf;
    return continuation(1, low, high) && continuation(2) ? 3 : 0;
  }
  if (first >= 0xf0 && first <= 0xf4) {
    const low = first === 0xf0 ? 0x90 : 0x80;
    const high = first === 0xf4 ? 0x8f : 0xbf;
    return continuation(1, low, high) && continuation(2) && continuation(3) ? 4 : 0;
  }
  return 0;
}

/** The bytes `path` stands for (the inverse of {@link pathFromBytes}). */
export function bytesOfPath(path: string): Buffer {
  if (!ESCAPED_BYTE.test(path)) return Buffer.from(path, "utf8");
  const parts: Buffer[] = [];
  let start = 0;
  for (let index = 0; index < path.length; index++) {
    const code = path.charCodeAt(index);
    if (code < 0xdc80 || code > 0xdcff) continue;
    const previous = index > 0 ? path.charCodeAt(index - 1) : 0;
    if (previous >= 0xd800 && previous <= 0xdbff) continue;
    parts.push(Buffer.from(path.slice(start, index), "utf8"), Buffer.from([code - 0xdc00]));
    start = index + 1;
  }
  parts.push(Buffer.from(path.slice(start), "utf8"));
  return Buffer.concat(parts);
}

/** `path` as `node:fs` takes it: the string itself, or its bytes when it holds an escaped byte. */
export function fsPath(path: string): string | Buffer {
  return ESCAPED_BYTE.test(path) ? bytesOfPath(path) : path;
}

/** bwrap arguments as `bwrap --args` reads them: each one's bytes, NUL-terminated. */
export function nulSeparatedArguments(args: readonly string[]): Buffer {
  const parts: Buffer[] = [];
  for (const arg of args) parts.push(bytesOfPath(arg), Buffer.from([0]));
  return Buffer.concat(parts);
}

type PathArgument = fs.PathLike | number;
const host = (target: PathArgument): PathArgument => (typeof target === "string" ? fsPath(target) : target);

/**
 * Flags to open a directory handle without following a link at the last component (a link
 * swapped in by a sandboxed command is not entered): the one definition for the sandbox's
 * directory handles.
 */
export const DIRECTORY_FLAGS = fs.constants.O_RDONLY | (fs.constants.O_DIRECTORY ?? 0) | (fs.constants.O_NOFOLLOW ?? 0);

/** `fs.lstatSync` for escaped paths. */
export const lstatSync = ((target: fs.PathLike, ...rest: unknown[]) =>
  (fs.lstatSync as (...args: unknown[]) => unknown)(host(target), ...rest)) as typeof fs.lstatSync;

/** `fs.openSync` for escaped paths. */
export const openSync = ((target: fs.PathLike, ...rest: unknown[]) =>
  (fs.openSync as (...args: unknown[]) => number)(host(target), ...rest)) as typeof fs.openSync;

/** `fs.existsSync` for escaped paths. */
export const existsSync = (target: string): boolean => fs.existsSync(fsPath(target));

/** `fs.unlinkSync` for escaped paths. */
export const unlinkSync = (target: string): void => fs.unlinkSync(fsPath(target));

/** `fs.rmdirSync` for escaped paths. */
export const rmdirSync = (target: string): void => fs.rmdirSync(fsPath(target));

/** `fs.renameSync` for escaped paths. */
export const renameSync = (from: string, to: string): void => fs.renameSync(fsPath(from), fsPath(to));

/** `fs.readlinkSync` for escaped paths: the link's target, escaped. */
export const readlinkSync = (target: string): string => pathFromBytes(fs.readlinkSync(fsPath(target), { encoding: "buffer" }));

/** `fs.realpathSync` for escaped paths: the real path, escaped. */
export const realpathSync = (target: string): string => pathFromBytes(fs.realpathSync(fsPath(target), { encoding: "buffer" }));

/** `fs.readdirSync` (names, or entries with `withFileTypes`) for escaped paths: the names escaped. */
export function readdirSync(target: string): string[];
export function readdirSync(target: string, options: { withFileTypes: true }): fs.Dirent[];
export function readdirSync(target: string, options?: { withFileTypes: true }): string[] | fs.Dirent[] {
  const where = fsPath(target);
  if (options?.withFileTypes !== true) {
    const names = fs.readdirSync(where);
    if (!names.some((name) => name.includes("\uFFFD"))) return names;
    return fs.readdirSync(where, { encoding: "buffer" }).map(pathFromBytes);
  }
  const entries = fs.readdirSync(where, { withFileTypes: true });
  if (!entries.some((entry) => entry.name.includes("\uFFFD"))) return entries;
  // Listed again as bytes: the lossy names cannot be mapped back.
  const raw = fs.readdirSync(where, { withFileTypes: true, encoding: "buffer" });
  for (const entry of raw) (entry as unknown as { name: string }).name = pathFromBytes(entry.name);
  return raw as unknown as fs.Dirent[];
}

/** The next entry's escaped name from a listing opened with `{ encoding: "buffer" }`, or `null` at its end. */
export function readEscapedName(listing: fs.Dir): string | null {
  const entry = listing.readSync() as fs.Dirent<Buffer> | null;
  return entry === null ? null : pathFromBytes(entry.name);
}

/** True when `text` holds an escaped byte (see {@link pathFromBytes}): it names something no UTF-8 string can. */
export function hasEscapedByte(text: string): boolean {
  return ESCAPED_BYTE.test(text);
}

/** `text` with every escaped byte shown as U+FFFD, as Node would have decoded it. */
export function lossyText(text: string): string {
  return text.replace(/(?<![\uD800-\uDBFF])[\uDC80-\uDCFF]/g, "\uFFFD");
}

/**
 * Decodes a byte stream in chunks as {@link pathFromBytes} does: a sequence cut by a chunk's end
 * is held until the next chunk, so it is not taken for bytes that are not UTF-8.
 */
export function escapingDecoder(): { write(chunk: Uint8Array): string; end(): string } {
  let carry: Buffer = Buffer.alloc(0);
  return {
    write(chunk) {
      const bytes = carry.length === 0 ? Buffer.from(chunk) : Buffer.concat([carry, chunk]);
      const cut = incompleteTail(bytes);
      carry = bytes.subarray(cut);
      return pathFromBytes(bytes.subarray(0, cut));
    },
    end() {
      const rest = carry;
      carry = Buffer.alloc(0);
      return pathFromBytes(rest);
    },
  };
}

/** Where a sequence that the bytes end in the middle of starts (`bytes.length` when none is). */
function incompleteTail(bytes: Buffer): number {
  for (let back = 1; back <= 3 && back <= bytes.length; back++) {
    const byte = bytes[bytes.length - back] as number;
    if (byte >= 0x80 && byte <= 0xbf) continue;
    const needs = byte >= 0xf0 && byte <= 0xf4 ? 4 : byte >= 0xe0 && byte <= 0xef ? 3 : byte >= 0xc2 && byte <= 0xdf ? 2 : 1;
    return needs > back ? bytes.length - back : bytes.length;
  }
  return bytes.length;
}
