/** The two line endings a patch can create. */
export type Newline = "\n" | "\r\n";

/**
 * A file split into lines, remembering each line's own ending, so that a patch changes only the
 * lines it touches: a CRLF file stays CRLF, a mixed file keeps every untouched line's ending, and
 * a missing final newline stays missing. Only `\n` breaks lines; a `\r` before it belongs to the
 * ending, a lone `\r` is text.
 */
export interface LineDocument {
  /** A leading byte-order mark, kept out of the first line so that it matches and survives edits. */
  readonly bom: string;
  /** The lines without their endings. */
  readonly lines: readonly string[];
  /** Each line's ending: `"\n"`, `"\r\n"`, or `""` for a last line without one. */
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
  const lines: string[] = [];
  const endings: string[] = [];
  const starts: number[] = [];
  let lf = 0;
  let crlf = 0;
  let first: Newline | undefined;
  let start = bom.length;
  for (let newline = content.indexOf("\n", start); newline !== -1; newline = content.indexOf("\n", start)) {
    const isCrlf = newline > start && content.charCodeAt(newline - 1) === 13;
    starts.push(start);
    lines.push(content.slice(start, isCrlf ? newline - 1 : newline));
    endings.push(isCrlf ? "\r\n" : "\n");
    if (isCrlf) crlf++;
    else lf++;
    first ??= isCrlf ? "\r\n" : "\n";
    start = newline + 1;
  }
  const finalNewline = start >= content.length;
  if (!finalNewline) {
    starts.push(start);
    lines.push(content.slice(start));
    endings.push("");
  }
  const newline: Newline = crlf > lf ? "\r\n" : lf > crlf ? "\n" : (first ?? "\n");
  return { bom, lines, endings, finalNewline, newline, source: content, starts };
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
  const { lines, endings, starts, source, newline } = document;
  // Text and ending parts alternate after the BOM: each line's (or run's) ending is its own part,
  // so the last one can be dropped when the file ends without a newline.
  const parts: string[] = [document.bom];
  let written = false;
  const keep = (from: number, to: number) => {
    if (from >= to) return;
    const last = to - 1;
    parts.push(source.slice(starts[from] as number, (starts[last] as number) + (lines[last] as string).length));
    parts.push((endings[last] as string) || newline);
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
  keep(next, lines.length);
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
