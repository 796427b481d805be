import type { GrepLine } from "./grep-ripgrep.js";

/**
 * A file's text split into lines as ripgrep counts them: on `\n` only (a `\r` stays in the line),
 * a final `\n` ending the last line rather than starting an empty one.
 */
export function splitLines(text: string): string[] {
  const lines = text.split("\n");
  if (text.endsWith("\n")) lines.pop();
  return lines;
}

/**
 * Turns one file's matching lines into printed lines with `context` lines around each, the file
 * fed in consecutive pieces of whole lines (a large file is searched in chunks): context before
 * a match may come from the end of the previous piece, and context owed after a match near a
 * piece's end is paid from the start of the next one, so a chunk border never changes the answer.
 */
export class ContextLines {
  /** The last `context` lines of the previous piece, for context before a match at a piece's start. */
  private tail: string[] = [];
  private tailFirst = 1;
  /** The number of the last line printed (0: none yet). */
  private printed = 0;
  /** Context lines are owed up to this line number (after the last match). */
  private owed = 0;

  constructor(
    private readonly file: string,
    private readonly context: number,
    /** Takes a printed line; `true` when the search must stop (the limit is reached). */
    private readonly emit: (line: GrepLine) => boolean,
  ) {}

  /**
   * Feeds the next piece: its lines, the number of its first line, and the 0-based indices (within
   * the piece, ascending) of its matching lines. `true` when `emit` asked to stop.
   */
  piece(lines: readonly string[], firstNumber: number, matched: readonly number[]): boolean {
    const lastNumber = firstNumber + lines.length - 1;
    const lineAt = (number: number): string =>
      (number >= firstNumber ? lines[number - firstNumber] : this.tail[number - this.tailFirst]) as string;
    const print = (number: number, match: boolean): boolean => {
      this.printed = number;
      return this.emit({ absolute: this.file, number, text: lineAt(number), match });
    };
    for (const index of matched) {
      const number = firstNumber + index;
      for (let near = this.printed + 1; near <= Math.min(this.owed, number - 1); near++) if (print(near, false)) return true;
      for (let near = Math.max(this.printed + 1, number - this.context); near < number; near++)
        if (print(near, false)) return true;
      if (print(number, true)) return true;
      this.owed = number + this.context;
    }
    for (let near = Math.max(this.printed + 1, firstNumber); near <= Math.min(this.owed, lastNumber); near++) {
      if (print(near, false)) return true;
    }
    if (this.context > 0) {
      // A piece of fewer lines than the context (very long lines) keeps part of the older tail.
      const recent = lines.length >= this.context ? lines : [...this.tail, ...lines];
      this.tail = recent.slice(Math.max(0, recent.length - this.context));
      this.tailFirst = lastNumber - this.tail.length + 1;
    }
    return false;
  }
}
