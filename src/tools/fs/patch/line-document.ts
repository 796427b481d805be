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
export interface LineDocument {
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
  /** The text the document was parsed from: unchanged runs of lines are copied from it in one piece. */
  readonly source: string;
  /** Where each line starts in `source`. */
  readonly starts: readonly number[];
}

/** A line the patch leaves: a kept file line with its ending, or a new line (`ending` undefined). */
export interface OutputLine {
  /** The line's text. */
  readonly text: string;
  /** The ending to keep; `undefined` for a new line, which takes the document's dominant ending. */
  readonly ending: string | undefined;
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

/** Splits `content` into a {@link LineDocument}. */
export function parseLineDocument(content: string): LineDocument {
  const bom = content.startsWith("\ufeff") ? "\ufeff" : "";
  const starts: number[] = [];
  let lf = 0;
  let crlf = 0;
  let first: Newline | undefined;
  let start = bom.length;
  for (let newline = content.indexOf("\n", start); newline !== -1; newline = content.indexOf("\n", start)) {
    starts.push(start);
    if (newline > start && content.charCodeAt(newline - 1) === 13) {
      crlf++;
      first ??= "\r\n";
    } else {
      lf++;
      first ??= "\n";
    }
    start = newline + 1;
  }
  const finalNewline = start >= content.length;
  if (!finalNewline) starts.push(start);
  const newline: Newline = crlf > lf ? "\r\n" : lf > crlf ? "\n" : (first ?? "\n");
  return new SourceLines(bom, content, starts, finalNewline, newline);
}

/** A {@link LineDocument} over its source text: lines are cut from it when asked for. */
class SourceLines implements LineDocument {
  private allLines: readonly string[] | undefined;
  private allEndings: readonly string[] | undefined;

  constructor(
    readonly bom: string,
    readonly source: string,
    readonly starts: readonly number[],
    readonly finalNewline: boolean,
    readonly newline: Newline,
  ) {}

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
    const newline = this.breakOf(index);
    if (newline === -1) return this.source.slice(start);
    const isCrlf = newline > start && this.source.charCodeAt(newline - 1) === 13;
    return this.source.slice(start, isCrlf ? newline - 1 : newline);
  }

  endingAt(index: number): string {
    const start = this.starts[index];
    if (start === undefined) return "";
    const newline = this.breakOf(index);
    if (newline === -1) return "";
    return newline > start && this.source.charCodeAt(newline - 1) === 13 ? "\r\n" : "\n";
  }

  /** Where line `index`'s text ends in `source` (before its ending). */
  textEnd(index: number): number {
    const start = this.starts[index] as number;
    const newline = this.breakOf(index);
    if (newline === -1) return this.source.length;
    return newline > start && this.source.charCodeAt(newline - 1) === 13 ? newline - 1 : newline;
  }

  get lines(): readonly string[] {
    this.allLines ??= this.starts.map((_, index) => this.lineAt(index));
    return this.allLines;
  }

  get endings(): readonly string[] {
    this.allEndings ??= this.starts.map((_, index) => this.endingAt(index));
    return this.allEndings;
  }
}

/**
 * Joins a document back after `replacements` (sorted by `start`, not overlapping). Every line but
 * the last ends with a newline (its own, or the dominant one when it had none); the last line
 * ends with one exactly when `finalNewline` is true. Runs of lines no replacement touches are
 * copied from the source text in one slice each (a line inside a run has its own ending: only the
 * document's last line can lack one), not line by line: a large file changed in a few places
 * costs a few slices, not an object and two strings per line.
 */
export function renderLineDocument(
  document: LineDocument,
  replacements: readonly LineReplacement[],
  finalNewline: boolean,
): string {
  const { starts, source, newline } = document;
  // Text and ending parts alternate after the BOM: each line's (or run's) ending is its own part,
  // so the last one can be dropped when the file ends without a newline.
  const parts: string[] = [document.bom];
  let written = false;
  const keep = (from: number, to: number) => {
    if (from >= to) return;
    const last = to - 1;
    const end =
      document instanceof SourceLines ? document.textEnd(last) : (starts[last] as number) + document.lineAt(last).length;
    parts.push(source.slice(starts[from] as number, end));
    parts.push(document.endingAt(last) || newline);
    written = true;
  };
  let next = 0;
  for (const replacement of replacements) {
    if (replacement.start < next) throw new Error("renderLineDocument: overlapping replacements");
    keep(next, replacement.start);
    for (const line of replacement.lines) {
      parts.push(line.text, line.ending || newline);
      written = true;
    }
    next = replacement.start + replacement.deleteCount;
  }
  keep(next, document.length);
  if (written && !finalNewline) parts.pop();
  return parts.join("");
}

/** How many lines `text` has (a final newline does not start another one). */
export function countLines(text: string): number {
  if (text === "") return 0;
  let count = 0;
  for (let index = text.indexOf("\n"); index !== -1; index = text.indexOf("\n", index + 1)) count++;
  return text.endsWith("\n") ? count : count + 1;
}
