import type { FileContent, SourceContent } from "./file-content.js";
import { PiecedBytes } from "./pieced-bytes.js";

export { countLines } from "./file-content.js";

/** The two line endings a patch can create. */
export type Newline = "\n" | "\r\n";

/**
 * A file split into lines, remembering each line's own ending, so that a patch changes only the
 * lines it touches: a CRLF file stays CRLF, a mixed file keeps every untouched line's ending, and
 * a missing final newline stays missing. Only `\n` breaks lines; a `\r` before it belongs to the
 * ending, a lone `\r` is text.
 *
 * Only where each line starts is found up front; a line's text is cut from the source when asked
 * for ({@link LineDocument.lineAt}). A hunk placed at its stated line looks at a few lines of the
 * file, so a 500-file patch no longer makes a string (and an array slot) for every line of every
 * file it reads, most of which it never looks at.
 */
export interface LineDocument<C extends SourceContent = SourceContent> {
  /** A leading byte-order mark, kept out of the first line so that it matches and survives edits. */
  readonly bom: string;
  /** How many lines the document has. */
  readonly length: number;
  /** The text of line `index` (0-based), without its ending. */
  lineAt(index: number): string;
  /** The ending of line `index`: `"\n"`, `"\r\n"`, or `""` for a last line without one. */
  endingAt(index: number): string;
  /** Every line without its ending (made on first use: for the searches that visit the whole file). */
  readonly lines: readonly string[];
  /** Every line's ending (made on first use). */
  readonly endings: readonly string[];
  /** Whether the last line ends with a newline (true for an empty file). */
  readonly finalNewline: boolean;
  /** The dominant ending, given to new lines: the more frequent one, the first one on a tie, LF when none. */
  readonly newline: Newline;
  /**
   * The content after `replacements` (sorted by `start`, not overlapping), of the kind parsed
   * (text or bytes): see {@link renderLineDocument}.
   */
  render(replacements: readonly LineReplacement[], finalNewline: boolean): C;
  /**
   * What {@link LineDocument.render} gives, with the byte-order mark when `keepBom` (else without
   * it), and for bytes left in pieces ({@link PiecedBytes}: the bytes read are not copied into a
   * new buffer; the commit writes the pieces).
   */
  renderContent(replacements: readonly LineReplacement[], finalNewline: boolean, keepBom: boolean): FileContent;
}

/**
 * A line the patch leaves: text with an ending (`undefined` for a new line, which takes the
 * document's dominant ending), or a line of the document kept as it is ({@link KeptLine}).
 */
export type OutputLine = TextLine | KeptLine;

/** A line given as text: a new line, or a file line with the ending to keep. */
export interface TextLine {
  /** The line's text. */
  readonly text: string;
  /** The ending to keep; `undefined` for a new line, which takes the document's dominant ending. */
  readonly ending: string | undefined;
}

/**
 * Line `kept` (0-based) of the document, left as it is: its text and ending are copied from the
 * source, not decoded and encoded again (a hunk's context lines: a 500-file patch keeps thousands,
 * and bytes that are not UTF-8 stay what they were). Renders as `{ text: lineAt(kept), ending:
 * endingAt(kept) }` would, where the text is the source's.
 */
export interface KeptLine {
  /** The document line kept. */
  readonly kept: number;
}

/** Replace `deleteCount` lines from `start` (0-based, in the original document) with `lines`. */
export interface LineReplacement {
  /** First replaced line. */
  readonly start: number;
  /** How many original lines are replaced. */
  readonly deleteCount: number;
  /** What stands in their place. */
  readonly lines: readonly OutputLine[];
}

/** The UTF-8 encoding of a byte-order mark. */
const BOM_BYTES = [0xef, 0xbb, 0xbf] as const;

/**
 * Splits `content` into a {@link LineDocument}. Bytes stay bytes: each line is decoded only when
 * looked at, and rendering copies the unchanged runs from them (UTF-8 never has a `\n` or `\r`
 * byte inside another character, so lines are found in the bytes as in the text).
 */
export function parseLineDocument(content: string): LineDocument<string>;
export function parseLineDocument(content: Buffer): LineDocument<Buffer>;
export function parseLineDocument(content: SourceContent): LineDocument;
export function parseLineDocument(content: SourceContent): LineDocument {
  const isText = typeof content === "string";
  const hasBom = isText
    ? content.startsWith("\ufeff")
    : content[0] === BOM_BYTES[0] && content[1] === BOM_BYTES[1] && content[2] === BOM_BYTES[2];
  const bom = hasBom ? "\ufeff" : "";
  const starts: number[] = [];
  const breaks = isText
    ? textBreaks(content, hasBom ? 1 : 0, starts)
    : byteBreaks(content, hasBom ? BOM_BYTES.length : 0, starts);
  const finalNewline = breaks.start >= content.length;
  if (!finalNewline) starts.push(breaks.start);
  const { lf, crlf, first } = breaks;
  const newline: Newline = crlf > lf ? "\r\n" : lf > crlf ? "\n" : (first ?? "\n");
  return isText
    ? new SourceLines(bom, content, starts, finalNewline, newline)
    : new ByteLines(bom, content, starts, finalNewline, newline);
}

/** What a scan for line breaks found: the start of the text after the last break, and the endings counted. */
interface Breaks {
  readonly start: number;
  readonly lf: number;
  readonly crlf: number;
  readonly first: Newline | undefined;
}

// The two scans differ only in how a break is searched and a code unit read: written twice, each a
// plain loop without a closure per document (every file a patch reads is scanned here, in a
// process whose code may still be warming up).

/** Pushes onto `starts` the start of every line of `text` from `start` that ends in a break. */
function textBreaks(text: string, start: number, starts: number[]): Breaks {
  let lf = 0;
  let crlf = 0;
  let first: Newline | undefined;
  for (let newline = text.indexOf("\n", start); newline !== -1; newline = text.indexOf("\n", start)) {
    starts.push(start);
    if (newline > start && text.charCodeAt(newline - 1) === 13) {
      crlf++;
      first ??= "\r\n";
    } else {
      lf++;
      first ??= "\n";
    }
    start = newline + 1;
  }
  return { start, lf, crlf, first };
}

/** {@link textBreaks} of bytes. */
function byteBreaks(bytes: Buffer, start: number, starts: number[]): Breaks {
  let lf = 0;
  let crlf = 0;
  let first: Newline | undefined;
  for (let newline = bytes.indexOf(10, start); newline !== -1; newline = bytes.indexOf(10, start)) {
    starts.push(start);
    if (newline > start && bytes[newline - 1] === 13) {
      crlf++;
      first ??= "\r\n";
    } else {
      lf++;
      first ??= "\n";
    }
    start = newline + 1;
  }
  return { start, lf, crlf, first };
}

/** A piece of rendered output: a range `[from, to)` of the source, or new text. */
type Piece = readonly [number, number] | string;

/**
 * A {@link LineDocument} over its source (text or bytes): lines are cut from it when asked for.
 * The two kinds differ only in how a code unit is read, a range decoded, and pieces joined.
 */
abstract class SplitLines<C extends SourceContent> implements LineDocument<C> {
  private allLines: readonly string[] | undefined;
  private allEndings: readonly string[] | undefined;

  constructor(
    readonly bom: string,
    readonly source: C,
    /** Where each line starts in `source` (code units of the text, or bytes). */
    readonly starts: readonly number[],
    readonly finalNewline: boolean,
    readonly newline: Newline,
  ) {}

  /** The code unit (or byte) at `at`. */
  protected abstract unitAt(at: number): number;
  /** The text of `source` from `from` to `to`. */
  protected abstract cut(from: number, to?: number): string;
  /** The content made of `pieces` after the BOM. */
  protected abstract join(pieces: readonly Piece[]): C;
  /** The content made of `pieces`, after the BOM when `keepBom` (see {@link LineDocument.renderContent}). */
  protected abstract joinContent(pieces: readonly Piece[], keepBom: boolean): FileContent;

  get length(): number {
    return this.starts.length;
  }

  /** Where line `index`'s `\n` is; -1 for a last line without one. */
  private breakOf(index: number): number {
    if (index + 1 < this.starts.length) return (this.starts[index + 1] as number) - 1;
    return this.finalNewline ? this.source.length - 1 : -1;
  }

  lineAt(index: number): string {
    const start = this.starts[index];
    if (start === undefined) return "";
    return this.cut(start, this.textEnd(index));
  }

  endingAt(index: number): string {
    const start = this.starts[index];
    if (start === undefined) return "";
    const newline = this.breakOf(index);
    if (newline === -1) return "";
    return newline > start && this.unitAt(newline - 1) === 13 ? "\r\n" : "\n";
  }

  /** Where line `index`'s text ends in `source` (before its ending). */
  private textEnd(index: number): number {
    const start = this.starts[index] as number;
    const newline = this.breakOf(index);
    if (newline === -1) return this.source.length;
    return newline > start && this.unitAt(newline - 1) === 13 ? newline - 1 : newline;
  }

  get lines(): readonly string[] {
    this.allLines ??= this.starts.map((_, index) => this.lineAt(index));
    return this.allLines;
  }

  get endings(): readonly string[] {
    this.allEndings ??= this.starts.map((_, index) => this.endingAt(index));
    return this.allEndings;
  }

  render(replacements: readonly LineReplacement[], finalNewline: boolean): C {
    return this.join(this.piecesOf(replacements, finalNewline));
  }

  renderContent(replacements: readonly LineReplacement[], finalNewline: boolean, keepBom: boolean): FileContent {
    return this.joinContent(this.piecesOf(replacements, finalNewline), keepBom);
  }

  /** The pieces of the content after `replacements` (after the BOM). */
  private piecesOf(replacements: readonly LineReplacement[], finalNewline: boolean): Piece[] {
    const { starts, newline } = this;
    // Kept lines are source ranges taken with their own endings (a run of them, or kept lines
    // that follow each other in the source, is one range); a text line is its text and ending
    // pieces. `endingLength` is the length of the last piece's final ending, what a file without
    // a final newline drops: the whole last piece when it is an ending string, else the tail of
    // the last range.
    const pieces: Piece[] = [];
    let endingLength = 0;
    const keep = (from: number, to: number) => {
      if (from >= to) return;
      const last = to - 1;
      const newlineAt = this.breakOf(last);
      const start = starts[from] as number;
      if (newlineAt === -1) {
        // Only the document's last line has no ending of its own: it takes the dominant one.
        pieces.push([start, this.source.length], newline);
        endingLength = -1;
        return;
      }
      const end = newlineAt + 1;
      const previous = pieces.at(-1);
      if (typeof previous === "object" && previous[1] === start && endingLength > 0)
        pieces[pieces.length - 1] = [previous[0], end];
      else pieces.push([start, end]);
      endingLength = newlineAt > (starts[last] as number) && this.unitAt(newlineAt - 1) === 13 ? 2 : 1;
    };
    let next = 0;
    for (const replacement of replacements) {
      if (replacement.start < next) throw new Error("renderLineDocument: overlapping replacements");
      keep(next, replacement.start);
      for (const line of replacement.lines) {
        if ("kept" in line) keep(line.kept, line.kept + 1);
        else {
          pieces.push(line.text, line.ending || newline);
          endingLength = -1;
        }
      }
      next = replacement.start + replacement.deleteCount;
    }
    keep(next, this.length);
    if (pieces.length > 0 && !finalNewline) {
      // -1: the last piece is the ending string itself.
      if (endingLength === -1) pieces.pop();
      else {
        const range = pieces.at(-1) as readonly [number, number];
        pieces[pieces.length - 1] = [range[0], range[1] - endingLength];
      }
    }
    return pieces;
  }
}

/** Lines of a text. */
class SourceLines extends SplitLines<string> {
  protected unitAt(at: number): number {
    return this.source.charCodeAt(at);
  }

  protected cut(from: number, to?: number): string {
    return this.source.slice(from, to);
  }

  protected join(pieces: readonly Piece[]): string {
    return this.joinContent(pieces, true);
  }

  protected joinContent(pieces: readonly Piece[], keepBom: boolean): string {
    const body = pieces.map((piece) => (typeof piece === "string" ? piece : this.source.slice(piece[0], piece[1]))).join("");
    return keepBom ? this.bom + body : body;
  }
}

/** Lines of bytes (UTF-8): rendered by copying the unchanged runs' bytes, new text encoded once per run of it. */
class ByteLines extends SplitLines<Buffer> {
  protected unitAt(at: number): number {
    return this.source[at] as number;
  }

  protected cut(from: number, to?: number): string {
    return this.source.toString("utf8", from, to);
  }

  protected join(pieces: readonly Piece[]): Buffer {
    // One buffer of the exact size, filled in place: no buffer per piece of new text and no
    // second copy by a concatenation.
    const bomLength = this.bom === "" ? 0 : BOM_BYTES.length;
    // Text pieces in a row (a new line and its ending, several new lines) are encoded as one.
    const runs: (readonly [number, number] | string)[] = [];
    let size = bomLength;
    for (const piece of pieces) {
      const last = runs.length - 1;
      if (typeof piece !== "string") {
        runs.push(piece);
        size += piece[1] - piece[0];
      } else if (typeof runs[last] === "string") runs[last] += piece;
      else runs.push(piece);
    }
    for (const run of runs) if (typeof run === "string") size += Buffer.byteLength(run);
    const output = Buffer.allocUnsafe(size);
    let at = this.source.copy(output, 0, 0, bomLength);
    for (const run of runs) {
      if (typeof run === "string") at += output.write(run, at);
      else at += this.source.copy(output, at, run[0], run[1]);
    }
    return output;
  }

  /**
   * The pieces as views of the bytes read and the new text encoded once per run of it: nothing of
   * the file's size is allocated or copied (see {@link PiecedBytes}).
   */
  protected joinContent(pieces: readonly Piece[], keepBom: boolean): PiecedBytes {
    const out: Buffer[] = [];
    if (keepBom && this.bom !== "") out.push(this.source.subarray(0, BOM_BYTES.length));
    let text = "";
    for (const piece of pieces) {
      if (typeof piece === "string") {
        text += piece;
        continue;
      }
      if (text !== "") out.push(Buffer.from(text));
      text = "";
      out.push(this.source.subarray(piece[0], piece[1]));
    }
    if (text !== "") out.push(Buffer.from(text));
    return new PiecedBytes(out);
  }
}

/**
 * Joins a document back after `replacements` (sorted by `start`, not overlapping). Every line but
 * the last ends with a newline (its own, or the dominant one when it had none); the last line
 * ends with one exactly when `finalNewline` is true. Runs of lines no replacement touches are
 * copied from the source in one piece each (a line inside a run has its own ending: only the
 * document's last line can lack one), not line by line: a large file changed in a few places
 * costs a few pieces, not an object and two strings per line. Bytes give bytes: the unchanged
 * runs are the bytes read, not decoded and encoded again.
 */
export function renderLineDocument<C extends SourceContent>(
  document: LineDocument<C>,
  replacements: readonly LineReplacement[],
  finalNewline: boolean,
): C {
  return document.render(replacements, finalNewline);
}
